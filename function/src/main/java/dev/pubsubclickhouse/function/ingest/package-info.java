/**
 * The plain-Java ingestion path: message to rows, group commit, one INSERT per batch, failures to
 * the sinks.
 */
package dev.pubsubclickhouse.function.ingest;
