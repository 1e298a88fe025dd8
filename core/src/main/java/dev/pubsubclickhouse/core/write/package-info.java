/**
 * The one write path both programs use: {@link dev.pubsubclickhouse.core.write.TableWriter} takes a
 * batch of records (Pub/Sub messages, backfill rows), writes them with one INSERT, isolates the
 * ones ClickHouse refuses, and hands those to the dead-letter sinks.
 */
package dev.pubsubclickhouse.core.write;
