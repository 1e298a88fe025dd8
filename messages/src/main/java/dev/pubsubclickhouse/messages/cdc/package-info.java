/**
 * Change data capture: Debezium's JSON change events read into rows of ClickHouse tables. The event
 * reader ({@link dev.pubsubclickhouse.messages.cdc.ChangeEventReader}), the decoding of Debezium's
 * semantic types ({@link dev.pubsubclickhouse.messages.cdc.SemanticValues}), the version a row's
 * changes sort by ({@link dev.pubsubclickhouse.messages.cdc.ChangeVersion}), the routing of a
 * source table to its ClickHouse table ({@link dev.pubsubclickhouse.messages.cdc.ChangeRouter},
 * with the deletes of truncates in {@link dev.pubsubclickhouse.messages.cdc.VersionedDeletes}), and
 * the rows themselves ({@link dev.pubsubclickhouse.messages.cdc.ChangeRows}).
 */
package dev.pubsubclickhouse.messages.cdc;
