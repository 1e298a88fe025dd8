package dev.pubsubclickhouse.testing.bigquery;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.LocalDateTime;

/**
 * A generated table of log events, {@code (event_time DATETIME, service STRING, level STRING,
 * message STRING)}: row i is an event i seconds after 2025-12-30 12:00:00, or for benchmarks the
 * same seed row every time (its pages and blocks are then encoded once).
 */
public final class LogEvents {
  private static final String[] SERVICES = {"api", "web", "worker"};
  private static final String[] LEVELS = {"INFO", "INFO", "WARN", "ERROR"};
  private static final LocalDateTime FIRST = LocalDateTime.of(2025, 12, 30, 12, 0);

  private LogEvents() {}

  /**
   * @param seed every row is the seed row (2025-12-30T12:00:00, api, INFO, "PRE-DATAFLOW TEST")
   */
  public static BigQueryTable table(int rows, boolean seed) {
    return BigQueryTable.generated(
        BigQueryRows.fields(
            "event_time DATETIME", "service STRING", "level STRING", "message STRING"),
        rows,
        i -> row(i, seed),
        seed);
  }

  private static JsonNode row(int i, boolean seed) {
    int second = seed ? 0 : i;
    String time = FIRST.plusSeconds(second).toString();
    return BigQueryRows.row(
        time.length() == 16 ? time + ":00" : time,
        SERVICES[second % SERVICES.length],
        LEVELS[second % LEVELS.length],
        seed ? "PRE-DATAFLOW TEST" : "event " + i);
  }
}
