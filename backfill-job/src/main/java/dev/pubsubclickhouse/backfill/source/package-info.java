/**
 * Reading BigQuery: the table or query result to read, the read units of a task (a row range read
 * with tabledata.list, or a stream of the Storage Read API in Avro), one retry policy for every
 * call, and pages of rows as the JSON values the core encoder takes.
 */
package dev.pubsubclickhouse.backfill.source;
