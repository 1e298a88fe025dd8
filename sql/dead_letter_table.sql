-- Dead-letter table for messages that cannot be mapped or coerced onto the target table
-- (CLICKHOUSE_DEAD_LETTER_TABLE=realtime.logs_dead_letter). The service writes the raw message,
-- the precise reason (column, type, value excerpt) and when it failed, then acknowledges the
-- message. Safe to run again: every statement is IF NOT EXISTS.

CREATE DATABASE IF NOT EXISTS realtime;

CREATE TABLE IF NOT EXISTS realtime.logs_dead_letter
(
    raw_message   String,
    error_message String,
    stack_trace   String,
    failed_at     DateTime
)
ENGINE = MergeTree
ORDER BY failed_at;
