/**
 * {@code replay.jar table}: dead letters from the ClickHouse dead-letter table back into the target
 * table, through the push service's encoder and the one write path ({@link
 * dev.pubsubclickhouse.core.write.TableWriter}), so the same type rules, whole messages and
 * deduplication tokens apply; each replayed row leaves the dead-letter table, and one that still
 * does not fit is replaced by its new dead letter.
 */
package dev.pubsubclickhouse.replay.table;
