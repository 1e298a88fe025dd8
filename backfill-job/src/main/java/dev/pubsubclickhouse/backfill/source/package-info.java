/**
 * Reading BigQuery: the table or query result to read, each task's share of its rows, and pages of
 * rows as JSON values the core encoder takes.
 */
package dev.pubsubclickhouse.backfill.source;
