/**
 * A local stand-in for BigQuery, for trying and measuring the job without Google Cloud: the REST
 * calls the job makes and the Storage Read API, serving rows held in memory as real Avro.
 */
package dev.pubsubclickhouse.backfill.local;
