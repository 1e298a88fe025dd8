/**
 * A real ClickHouse for tests: started by scripts/clickhouse-local, one database per test class.
 */
package dev.pubsubclickhouse.testing;
