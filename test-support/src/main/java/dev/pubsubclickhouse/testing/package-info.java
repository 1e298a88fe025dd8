/**
 * The real parts tests run against: a ClickHouse started by scripts/clickhouse-local (one database
 * per test class), gcloud's Pub/Sub emulator started by scripts/pubsub-emulator (one per test
 * class), the service jar as a process, and proxies that inject what the real parts will not do on
 * demand (faults, TLS).
 */
package dev.pubsubclickhouse.testing;
