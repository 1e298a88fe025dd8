package dev.pubsubclickhouse.function.observability;

import dev.pubsubclickhouse.core.evolve.EvolutionEvents;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.TableName;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Schema evolution's changes as the push service's log lines and metrics: each one, once, except
 * declined fields, which a flood of new names can make one per message: at most one line per table
 * per {@link #DECLINED_LOG_INTERVAL}, each declined field counted.
 */
public final class PushEvolutionEvents implements EvolutionEvents {
  static final Duration DECLINED_LOG_INTERVAL = Duration.ofMinutes(1);

  private final Metrics metrics;
  private final LongSupplier nanoTime;
  private final Map<TableName, DeclinedLog> declinedLogs = new ConcurrentHashMap<>();

  /** When a table's last line about a declined field was written, and the fields since. */
  private static final class DeclinedLog {
    long loggedAt;
    int unlogged;

    DeclinedLog(long loggedAt) {
      this.loggedAt = loggedAt;
    }
  }

  public PushEvolutionEvents(Metrics metrics) {
    this(metrics, System::nanoTime);
  }

  PushEvolutionEvents(Metrics metrics, LongSupplier nanoTime) {
    this.metrics = metrics;
    this.nanoTime = nanoTime;
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
    int unlogged;
    long interval = DECLINED_LOG_INTERVAL.toNanos();
    DeclinedLog log =
        declinedLogs.computeIfAbsent(
            table, name -> new DeclinedLog(nanoTime.getAsLong() - interval));
    synchronized (log) {
      long now = nanoTime.getAsLong();
      if (now - log.loggedAt < interval) {
        log.unlogged++;
        return;
      }
      log.loggedAt = now;
      unlogged = log.unlogged;
      log.unlogged = 0;
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("table", table.toString());
    fields.put("field", field);
    fields.put("reason", reason);
    if (unlogged > 0) {
      fields.put("declinedWithoutALineSinceTheLast", unlogged);
    }
    JsonLog.warning("a new field gets no column", fields);
  }
}
