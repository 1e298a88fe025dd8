-- The latest state of a source table (here Postgres' public.orders, primary key id), written by
-- the service with PAYLOAD_FORMAT=debezium and CDC_TABLES=public.orders=orders.
-- Read it with FINAL:  SELECT * FROM orders FINAL WHERE __is_deleted = 0
-- ORDER BY must be the source's primary key: ReplacingMergeTree keeps one row per ORDER BY key,
-- the one of the highest __version, and a delete (__is_deleted = 1) of the highest version hides
-- the key. Do not PARTITION BY a column that can change: rows replace each other only within a
-- partition, so the old version would stay alive in its old partition.
CREATE TABLE orders
(
    id Int32,
    customer String,
    amount Decimal(12, 2),
    placed DateTime64(6, 'UTC'),
    day Date32,
    note Nullable(String),
    __op LowCardinality(String),
    __version UInt64,
    __is_deleted UInt8,
    __source_ts_ms DateTime64(3, 'UTC'),
    __source_table LowCardinality(String),
    __transaction_id String,
    __lsn UInt64,
    __ingested_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(__version, __is_deleted)
ORDER BY id;
