-- CDC_TRUNCATE_MARKS_TABLE (default _cdc_truncate_marks, in CLICKHOUSE_DATABASE): the versions of
-- the truncates and re-snapshots the service applied, one row each, shared by every instance. A
-- change below its target's highest version is deleted whichever instance writes it, after a
-- restart too (docs/cdc.md#truncates-and-re-snapshots). The service creates it when missing; made
-- here instead, the service's user needs only: GRANT SELECT, INSERT ON _cdc_truncate_marks
-- On a self-managed replicated cluster, add ON CLUSTER <cluster> after the name and use
-- ENGINE = ReplicatedReplacingMergeTree(version): the service then writes each mark as a quorum
-- insert, so that every replica's instances see it.
CREATE TABLE IF NOT EXISTS _cdc_truncate_marks
(
    target String,
    version UInt64,
    marked_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY target;
