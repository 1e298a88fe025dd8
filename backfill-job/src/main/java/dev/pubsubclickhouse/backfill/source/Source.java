package dev.pubsubclickhouse.backfill.source;

import com.google.cloud.bigquery.Schema;
import com.google.cloud.bigquery.TableId;
import java.time.Instant;
import java.util.Optional;

/**
 * What is read: a table (the input table, or the result table of the query) with its schema and row
 * count as seen at start.
 *
 * @param description for logs: the table spec, or "query" with its job id
 * @param table the table whose rows are listed
 * @param totalRows rows in it at start; the tasks share [0, totalRows)
 * @param fingerprint identifies this exact content: a table and its last modification; a view or a
 *     query, the execution's query job. Two runs with the same fingerprint read the same rows in
 *     the same order, so their pages (and deduplication tokens and checkpoints) line up.
 * @param snapshotTime the time the rows are as of, when the source was read as of a time
 */
public record Source(
    String description,
    TableId table,
    Schema schema,
    long totalRows,
    String fingerprint,
    Optional<Instant> snapshotTime) {}
