-- The exactly-once layout: the example table of sql/logs.sql with the Pub/Sub metadata columns, so
-- that queries see every published row once however often it was written
-- (CLICKHOUSE_DATABASE=realtime, CLICKHOUSE_TABLE=logs_exactly_once).
--
-- Pub/Sub delivers at least once: a message whose answer was lost (the service killed mid-batch,
-- ClickHouse down after it stored a batch, a push that outlived the ack deadline), or that is
-- replayed (seek, dead-letter replay), is written again. Every copy of a row carries the same key:
--   _pubsub_subscription  the subscription, which names the topic (message ids are unique only
--                         within a topic, so tables fed from several topics keep them apart)
--   _pubsub_message_id    the message id, the same on every delivery
--   _pubsub_row_index     the row's place in its message (0 for a JSON object; 0, 1, ... for the
--                         objects of a JSON array)
-- ReplacingMergeTree keeps one row per key once parts merge; SELECT ... FINAL (or GROUP BY the key)
-- sees one row per key at any time. _ingested_at is the version: the latest copy wins.
-- Proven through the Pub/Sub emulator by emulator-tests/.../ExactlyOnceThroughEmulatorIT.
-- Safe to run again: every statement is IF NOT EXISTS.

CREATE DATABASE IF NOT EXISTS realtime;

CREATE TABLE IF NOT EXISTS realtime.logs_exactly_once
(
    event_time               DateTime,
    service                  String,
    level                    String,
    message                  String,
    _pubsub_subscription     String,
    _pubsub_message_id       String,
    _pubsub_row_index        UInt32,
    _pubsub_publish_time     DateTime64(3),
    _pubsub_attributes       Map(String, String),
    _pubsub_ordering_key     String,
    _pubsub_delivery_attempt UInt32,
    _ingested_at             DateTime64(3) DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(_ingested_at)
ORDER BY (_pubsub_subscription, _pubsub_message_id, _pubsub_row_index);

-- SELECT count() FROM realtime.logs_exactly_once FINAL;   -- the rows published, each once
