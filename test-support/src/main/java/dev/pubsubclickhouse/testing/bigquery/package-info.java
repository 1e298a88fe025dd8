/**
 * The one BigQuery stand-in: tables held in memory (or generated row by row), served through
 * BigQuery's REST API and its Storage Read API on localhost, with injectable faults. The backfill
 * job's tests and benchmarks run against it, and scripts/bigquery-local serves it for trying the
 * job without Google Cloud.
 */
package dev.pubsubclickhouse.testing.bigquery;
