package dev.pubsubclickhouse.function.observability;

import dev.pubsubclickhouse.core.insert.InsertException;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.write.WriteEvents;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The write path's events as the push service's metrics and log lines. */
public final class PushWriteEvents implements WriteEvents {
  /** Message identities named in one log line about a failed view; the rest are counted. */
  private static final int MAX_IDENTITIES_LOGGED = 20;

  private final Metrics metrics;
  private final TableName table;

  public PushWriteEvents(Metrics metrics, TableName table) {
    this.metrics = metrics;
    this.table = table;
  }

  @Override
  public void inserted(int rows, long millis) {
    metrics.inserts.increment();
    metrics.insertedRows.add(rows);
    metrics.batchRows.record(rows);
    metrics.insertLatencyMillis.record(millis);
  }

  @Override
  public void insertFailed(InsertException failure) {
    metrics.insertFailures.increment();
  }

  @Override
  public void schemaChanged() {
    JsonLog.warning(
        "target table changed; read its schema again", Map.of("table", table.toString()));
  }

  @Override
  public void notWritten(int records, Exception cause) {
    JsonLog.warning(
        "messages not written; Pub/Sub will redeliver them",
        Map.of("messages", records, "error", String.valueOf(cause.getMessage())));
  }

  @Override
  public void viewFailed(List<String> identities, InsertException failure) {
    metrics.viewFailures.increment();
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("table", table.toString());
    fields.put("messages", identities.size());
    fields.put(
        "messageIds",
        identities.stream()
            .limit(MAX_IDENTITIES_LOGGED)
            .map(
                identity -> identity == null ? "?" : identity.substring(identity.indexOf('\n') + 1))
            .toList());
    fields.put("error", failure.reason());
    JsonLog.error(
        "a materialized view failed; the rows are in the target table, the view's table lacks them",
        fields,
        null);
  }

  @Override
  public void viewFailedAndNothingKept(int records, String engine, InsertException failure) {
    metrics.viewFailures.increment();
    JsonLog.warning(
        "a materialized view failed and the table's engine keeps no rows; the messages are"
            + " written again apart, and those the view refuses are dead-lettered",
        Map.of(
            "table",
            table.toString(),
            "engine",
            engine,
            "messages",
            records,
            "error",
            failure.reason()));
  }

  @Override
  public void deadLettered(int records) {
    metrics.deadLettered.add(records);
  }
}
