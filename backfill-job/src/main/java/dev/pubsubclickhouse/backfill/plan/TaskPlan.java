package dev.pubsubclickhouse.backfill.plan;

import com.google.cloud.bigquery.Schema;
import dev.pubsubclickhouse.backfill.source.ReadUnit;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What one task of an execution reads: its share of the execution's pinned snapshot. Built with
 * {@link #builder()}.
 *
 * @param description the source as the log shows it
 * @param schema the BigQuery schema of the rows read
 * @param snapshotTime the time the rows are as of, when read as of a time
 * @param units this task's read units (a row range, or its read streams), each checkpointed
 * @param sourceRows rows in the whole snapshot when known, else -1
 * @param origin what the units read, the same for every execution of the same unchanged source: the
 *     checkpoints' key for the rows refused before
 * @param readSessionOf the earlier execution whose read session this one reads on (the source is
 *     unchanged since), if any
 * @param warnings things worth a warning line from every task
 */
public record TaskPlan(
    String description,
    Schema schema,
    Optional<Instant> snapshotTime,
    List<ReadUnit> units,
    long sourceRows,
    String origin,
    Optional<String> readSessionOf,
    List<String> warnings) {

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

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a {@link TaskPlan}: no snapshot time, rows unknown, no earlier read session, no
   * warnings.
   */
  public static final class Builder {
    private String description;
    private Schema schema;
    private Optional<Instant> snapshotTime = Optional.empty();
    private List<ReadUnit> units;
    private long sourceRows = -1;
    private String origin;
    private Optional<String> readSessionOf = Optional.empty();
    private List<String> warnings = List.of();

    private Builder() {}

    public Builder description(String description) {
      this.description = description;
      return this;
    }

    public Builder schema(Schema schema) {
      this.schema = schema;
      return this;
    }

    public Builder snapshotTime(Optional<Instant> snapshotTime) {
      this.snapshotTime = snapshotTime;
      return this;
    }

    public Builder units(List<ReadUnit> units) {
      this.units = units;
      return this;
    }

    public Builder sourceRows(long sourceRows) {
      this.sourceRows = sourceRows;
      return this;
    }

    public Builder origin(String origin) {
      this.origin = origin;
      return this;
    }

    public Builder readSessionOf(Optional<String> readSessionOf) {
      this.readSessionOf = readSessionOf;
      return this;
    }

    public Builder warnings(List<String> warnings) {
      this.warnings = warnings;
      return this;
    }

    public TaskPlan build() {
      return new TaskPlan(
          description, schema, snapshotTime, units, sourceRows, origin, readSessionOf, warnings);
    }
  }
}
