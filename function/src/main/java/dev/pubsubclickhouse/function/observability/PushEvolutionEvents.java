package dev.pubsubclickhouse.function.observability;

import dev.pubsubclickhouse.core.evolve.EvolutionEvents;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.Map;

/** Schema evolution's changes as the push service's log lines and metrics: each one, once. */
public final class PushEvolutionEvents implements EvolutionEvents {
  private final Metrics metrics;

  public PushEvolutionEvents(Metrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void columnAdded(TableName table, String column, String type) {
    metrics.columnsAdded.increment();
    JsonLog.info(
        "column added for a new field",
        Map.of("table", table.toString(), "column", column, "type", type));
  }

  @Override
  public void columnTypeDiffers(TableName table, String column, String inferred, String actual) {
    metrics.columnTypeConflicts.increment();
    JsonLog.warning(
        "a new field's column was added with another type (by another instance, or by hand);"
            + " values are encoded for it or dead-lettered",
        Map.of(
            "table", table.toString(), "column", column, "inferred", inferred, "actual", actual));
  }

  @Override
  public void fieldNotAdded(TableName table, String field, String reason) {
    metrics.fieldsNotAdded.increment();
    JsonLog.warning(
        "a new field gets no column",
        Map.of("table", table.toString(), "field", field, "reason", reason));
  }
}
