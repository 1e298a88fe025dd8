/**
 * What one execution reads, pinned once and shared by all its tasks: the snapshot time and the read
 * session, settled first-writer-wins in a small ClickHouse table; and what one task of it reads.
 */
package dev.pubsubclickhouse.backfill.plan;
