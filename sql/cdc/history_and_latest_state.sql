-- History and latest state from one topic: the service writes every change into the history
-- table (CDC_TABLES=public.orders=orders_history), and a materialized view copies each row into
-- the latest-state table. A truncate's DELETE reaches both (the service finds the view's TO
-- table). Read the history in log order:  SELECT * FROM orders_history FINAL ORDER BY id, __version
-- and the latest state:  SELECT * FROM orders_latest FINAL WHERE __is_deleted = 0
-- The history keeps one row per (key, version): redelivered messages collapse, every change stays.
CREATE TABLE orders_history
(
    id Int32,
    customer String,
    amount Decimal(12, 2),
    placed DateTime64(6, 'UTC'),
    day Date32,
    note Nullable(String),
    __lsn UInt64,
    __op LowCardinality(String),
    __version UInt64,
    __is_deleted UInt8,
    __source_ts_ms DateTime64(3, 'UTC'),
    __source_table String,
    __transaction_id String,
    __ingested_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (id, __version);

CREATE TABLE orders_latest AS orders_history
ENGINE = ReplacingMergeTree(__version, __is_deleted)
ORDER BY id;

CREATE MATERIALIZED VIEW orders_latest_mv TO orders_latest AS
SELECT * FROM orders_history;
