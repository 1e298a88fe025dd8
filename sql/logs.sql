-- Example target table for the push service and the backfill job (CLICKHOUSE_DATABASE=realtime,
-- CLICKHOUSE_TABLE=logs). Publish JSON such as
--   {"event_time":"2026-01-15T12:34:56Z","service":"api","level":"INFO","message":"hello"}
-- Safe to run again: every statement is IF NOT EXISTS.

CREATE DATABASE IF NOT EXISTS realtime;

CREATE TABLE IF NOT EXISTS realtime.logs
(
    event_time DateTime,
    service    String,
    level      String,
    message    String
)
ENGINE = MergeTree
ORDER BY event_time;

-- Variant with the Pub/Sub metadata columns: the push service fills every _pubsub_* column the
-- table has (and _ingested_at) from the push request. Pub/Sub delivers at least once,
-- so a redelivered message arrives twice; ReplacingMergeTree keyed on the message id keeps one
-- copy per message id after merges, and queries with FINAL (or GROUP BY _pubsub_message_id) see
-- exactly one row per message at any time. _ingested_at is the version: the latest copy wins.
--
-- CREATE TABLE IF NOT EXISTS realtime.logs_exactly_once
-- (
--     event_time               DateTime,
--     service                  String,
--     level                    String,
--     message                  String,
--     _pubsub_message_id       String,
--     _pubsub_publish_time     DateTime64(3),
--     _pubsub_attributes       Map(String, String),
--     _pubsub_ordering_key     String,
--     _pubsub_subscription     String,
--     _pubsub_delivery_attempt UInt32,
--     _ingested_at             DateTime64(3) DEFAULT now64(3)
-- )
-- ENGINE = ReplacingMergeTree(_ingested_at)
-- ORDER BY _pubsub_message_id;
--
-- SELECT count() FROM realtime.logs_exactly_once FINAL;
