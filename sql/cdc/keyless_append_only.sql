-- A source table without a primary key: no key names a row, so no row can replace another.
-- Every change is appended; __op and __is_deleted say what it was. Deletes need REPLICA
-- IDENTITY FULL on Postgres (else Debezium's event names no row and it goes to the dead letters).
CREATE TABLE audit_log
(
    at DateTime64(6, 'UTC'),
    actor String,
    action String,
    __op LowCardinality(String),
    __version UInt64,
    __is_deleted UInt8,
    __source_ts_ms DateTime64(3, 'UTC'),
    __ingested_at DateTime64(3, 'UTC')
)
ENGINE = MergeTree
ORDER BY (__version);
