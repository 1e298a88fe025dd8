-- Dead-letter table for messages that cannot be mapped or coerced onto the target table
-- (CLICKHOUSE_DEAD_LETTER_TABLE=realtime.logs_dead_letter). The service writes the raw message,
-- the precise reason (column, type, value excerpt) and when it failed, then acknowledges the
-- message. The columns after failed_at keep the message as Pub/Sub delivered it, so that
-- `replay.jar table` writes it back to the target table with its _pubsub_* metadata as it was;
-- they are optional (a table with only the first four still works, with less to replay) and are
-- DEFAULT or Nullable, so that writers that know only the first four can write here too.
-- Safe to run again: every statement is IF NOT EXISTS.

CREATE DATABASE IF NOT EXISTS realtime;

CREATE TABLE IF NOT EXISTS realtime.logs_dead_letter
(
    raw_message      String,                              -- the data, decompressed; base64 if not UTF-8 (stack_trace then says rawMessageEncoding=base64)
    error_message    String,                              -- why: column, type, value excerpt, rule
    stack_trace      String,                              -- where from, as key=value pairs
    failed_at        DateTime,                            -- when it failed
    message_id       String DEFAULT '',                   -- Pub/Sub message id
    publish_time     Nullable(DateTime64(3, 'UTC')),      -- when Pub/Sub received it
    attributes       Map(String, String) DEFAULT map(),   -- the message's attributes
    ordering_key     String DEFAULT '',                   -- its ordering key, or empty
    subscription     String DEFAULT '',                   -- projects/P/subscriptions/S
    delivery_attempt Nullable(UInt32)                     -- when Pub/Sub sent one
)
ENGINE = MergeTree
ORDER BY failed_at;

-- A table made before these columns existed gets them (existing rows: empty or NULL).
ALTER TABLE realtime.logs_dead_letter
    ADD COLUMN IF NOT EXISTS message_id       String DEFAULT '',
    ADD COLUMN IF NOT EXISTS publish_time     Nullable(DateTime64(3, 'UTC')),
    ADD COLUMN IF NOT EXISTS attributes       Map(String, String) DEFAULT map(),
    ADD COLUMN IF NOT EXISTS ordering_key     String DEFAULT '',
    ADD COLUMN IF NOT EXISTS subscription     String DEFAULT '',
    ADD COLUMN IF NOT EXISTS delivery_attempt Nullable(UInt32);
