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

-- With the Pub/Sub metadata columns, keyed so that redelivered copies collapse: see
-- sql/logs_exactly_once.sql.
