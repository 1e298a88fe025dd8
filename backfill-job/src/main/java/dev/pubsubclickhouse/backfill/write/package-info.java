/**
 * Writing to ClickHouse: the column plan (which BigQuery field fills which column), the table made
 * from a BigQuery schema, pages encoded and inserted with deterministic deduplication tokens,
 * dead-letter sinks and checkpoints.
 */
package dev.pubsubclickhouse.backfill.write;
