-- A source table without a primary key: no key names a row, so no row may replace another. Every
-- change is kept; __op and __is_deleted say what it was. Deletes need REPLICA IDENTITY FULL on
-- Postgres (else Debezium's event names no row and it goes to the dead letters).
-- ORDER BY (__version, _pubsub_message_id) keeps distinct changes apart (a snapshot reads every
-- row at one version) while a message Pub/Sub delivers again collapses. Read it with FINAL:
--   SELECT * FROM audit_log FINAL ORDER BY __version
-- Debezium's replay after a restart publishes old changes under new message ids: those stay twice.
CREATE TABLE audit_log
(
    at DateTime64(6, 'UTC'),
    actor String,
    action String,
    __op LowCardinality(String),
    __version UInt64,
    __is_deleted UInt8,
    __source_ts_ms DateTime64(3, 'UTC'),
    __ingested_at DateTime64(3, 'UTC'),
    _pubsub_message_id String
)
ENGINE = ReplacingMergeTree
ORDER BY (__version, _pubsub_message_id);
