package dev.pubsubclickhouse.backfill.plan;

import com.google.cloud.bigquery.Schema;
import dev.pubsubclickhouse.backfill.source.ReadUnit;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What one task of an execution reads: its share of the execution's pinned snapshot.
 *
 * @param description the source as the log shows it
 * @param schema the BigQuery schema of the rows read
 * @param snapshotTime the time the rows are as of, when read as of a time
 * @param units this task's read units (a row range, or its read streams), each checkpointed
 * @param sourceRows rows in the whole snapshot when known, else -1
 */
public record TaskPlan(
    String description,
    Schema schema,
    Optional<Instant> snapshotTime,
    List<ReadUnit> units,
    long sourceRows) {

  /** Rows this task is to read when known, else -1. */
  public long taskRows() {
    long total = 0;
    for (ReadUnit unit : units) {
      if (unit.knownRows() < 0) {
        return -1;
      }
      total += unit.knownRows();
    }
    return total;
  }
}
