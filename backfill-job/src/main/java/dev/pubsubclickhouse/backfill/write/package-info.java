/**
 * Writing to ClickHouse: the column plan (which BigQuery field fills which column), pages encoded
 * and inserted with deterministic deduplication tokens, dead-letter sinks and checkpoints.
 */
package dev.pubsubclickhouse.backfill.write;
