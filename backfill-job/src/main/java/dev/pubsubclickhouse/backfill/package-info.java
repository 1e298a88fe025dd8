/**
 * The BigQuery to ClickHouse backfill as a Cloud Run Job: parameters, configuration, the entry
 * point and the run of one task, step by step.
 */
package dev.pubsubclickhouse.backfill;
