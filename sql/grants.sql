-- What the ClickHouse user of the push service, the backfill job and replay (CLICKHOUSE_USER) may
-- do, and no more, for the tables of sql/logs.sql and sql/dead_letter_table.sql. No other
-- database, no DDL beyond the backfill's own checkpoint tables.
-- On the ClickHouse VM the startup script gives these to the user it creates (users.d, one <query>
-- each); elsewhere create the user and run each with "TO <user>" appended:
--   CREATE USER pipeline IDENTIFIED WITH sha256_password BY '...';
-- The test suite's server has a user made from this file (scripts/clickhouse-local), and the
-- service, the backfill and replay each run as it in a test, so a grant missing here fails there.

-- The service reads each table's columns (DESCRIBE, system.columns) and inserts rows; replay
-- reads the dead letters and writes them back to the target.
GRANT SELECT, INSERT ON realtime.logs;
GRANT SELECT, INSERT ON realtime.logs_dead_letter;

-- Part-pressure flow control reads the target's active parts, the merges running and the insert
-- delays of the server (without these it serves with flow control off, saying so once).
GRANT SELECT ON system.parts;
GRANT SELECT ON system.merges;
GRANT SELECT ON system.events;
GRANT SELECT ON system.merge_tree_settings;

-- replay table deletes the dead letters it has written back.
GRANT ALTER DELETE ON realtime.logs_dead_letter;

-- The backfill keeps its checkpoints beside the target (CHECKPOINT_TABLE, default
-- _backfill_checkpoints, and <name>_plans), creates them when missing and adds columns a newer
-- version needs.
GRANT CREATE TABLE, SELECT, INSERT, ALTER ADD COLUMN ON realtime._backfill_checkpoints;
GRANT CREATE TABLE, SELECT, INSERT, ALTER ADD COLUMN ON realtime._backfill_checkpoints_plans;
GRANT TABLE ENGINE ON MergeTree;

-- Only with settings that need more (not granted here; add them for the tables concerned):
--   SCHEMA_EVOLUTION=add_columns      GRANT ALTER ADD COLUMN ON realtime.logs
--   PAYLOAD_FORMAT=debezium, a truncate (CDC_TRUNCATE=delete) or a re-snapshot
--                                     GRANT ALTER DELETE ON <each CDC target>, and on each
--                                     table a view on it writes to (TO), with
--                                     GRANT SHOW TABLES ON <that view>
--   PAYLOAD_FORMAT=debezium           GRANT SELECT, INSERT ON realtime._cdc_truncate_marks
--                                     (CDC_TRUNCATE_MARKS_TABLE; CREATE TABLE on it and
--                                     GRANT TABLE ENGINE ON ReplacingMergeTree for the service to
--                                     create it, else make it with sql/cdc/truncate_marks.sql)
--   backfill --createTable            GRANT CREATE TABLE ON realtime.logs
