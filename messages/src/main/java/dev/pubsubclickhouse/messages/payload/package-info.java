/**
 * Message data to rows: decompression (gzip, zstd), then JSON, or Avro and Protocol Buffers
 * messages of a topic with a Pub/Sub schema (JSON or binary encoding), decoded with the revision
 * the message names, fetched from Pub/Sub's schema service and kept per revision.
 */
package dev.pubsubclickhouse.messages.payload;
