/**
 * The BigQuery to ClickHouse backfill as a Cloud Run Job: parameters and the command line, the
 * configuration, the entry point, and one task: its plan (the execution's pinned snapshot and this
 * task's share), its execution (the read, encode, write pipeline) and each page's completion.
 */
package dev.pubsubclickhouse.backfill;
