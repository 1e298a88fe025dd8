package dev.pubsubclickhouse.messages.tables;

import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.core.write.WriteOutcome;
import dev.pubsubclickhouse.core.write.WriteRecord;
import dev.pubsubclickhouse.messages.cdc.TruncateGuard;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * A table messages are written to: its schema as last read, and the writer of its batches; for a
 * CDC_TABLES target, the guard that deletes a written change a truncate has superseded.
 *
 * @param truncates null unless change events are written here
 */
public record Destination(TargetTable table, TableWriter writer, TruncateGuard truncates) {
  public Destination(TargetTable table, TableWriter writer) {
    this(table, writer, null);
  }

  /**
   * Writes the records routed here with one INSERT (or a few, when some are refused). When row
   * changes were written, reads the target's truncate mark once and deletes them again if a change
   * is below it ({@link TruncateGuard}); when that fails, the changes written are {@link
   * WriteOutcome#RETRY}: their messages are answered 503 and delivered again.
   *
   * @param routes each record's route
   */
  public <R extends WriteRecord> TableWriter.Result write(
      List<R> records, Function<? super R, Route> routes) {
    TableWriter.Result result = writer.write(records);
    if (truncates == null) {
      return result;
    }
    OptionalLong lowest = OptionalLong.empty();
    for (int i = 0; i < records.size(); i++) {
      OptionalLong version = writtenChange(records.get(i), result.outcomes().get(i), routes);
      if (version.isPresent()
          && (lowest.isEmpty()
              || Long.compareUnsigned(version.getAsLong(), lowest.getAsLong()) < 0)) {
        lowest = version;
      }
    }
    if (lowest.isEmpty()) {
      return result;
    }
    try {
      truncates.written(table.name(), lowest.getAsLong());
      return result;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      IllegalStateException cause =
          new IllegalStateException(
              "the changes written to "
                  + table.name()
                  + " could not be checked against its truncates: "
                  + ClickHouseFailures.describe(e),
              e);
      List<WriteOutcome> outcomes = new ArrayList<>(result.outcomes());
      int retried = 0;
      for (int i = 0; i < records.size(); i++) {
        if (writtenChange(records.get(i), outcomes.get(i), routes).isPresent()) {
          outcomes.set(i, WriteOutcome.RETRY);
          retried++;
        }
      }
      JsonLog.warning(
          "changes written but not checked against the truncates; Pub/Sub will redeliver them",
          Map.of(
              "table", table.name().toString(), "messages", retried, "error", cause.getMessage()));
      return new TableWriter.Result(List.copyOf(outcomes), result.reasons(), cause);
    }
  }

  /** The version of the row change {@code record} wrote; empty when it wrote none. */
  private static <R extends WriteRecord> OptionalLong writtenChange(
      R record, WriteOutcome outcome, Function<? super R, Route> routes) {
    return outcome == WriteOutcome.WRITTEN
        ? routes.apply(record).changeVersion()
        : OptionalLong.empty();
  }
}
