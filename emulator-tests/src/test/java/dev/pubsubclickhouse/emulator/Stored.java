package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.emulator.Events.Row;
import dev.pubsubclickhouse.testing.EventValues;
import dev.pubsubclickhouse.testing.JsonValues;
import dev.pubsubclickhouse.testing.Sql;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What arrived in ClickHouse, read over its HTTP interface, and waiting for it to arrive. */
final class Stored {
  private final Sql sql;
  private final String table;

  Stored(Sql sql, String table) {
    this.sql = sql;
    this.table = table;
  }

  /**
   * Creates a target table in the exactly-once layout with its merges stopped, so that every copy
   * written stays countable ({@link #written()}) and only {@code FINAL} collapses them.
   */
  static Stored createTarget(Sql sql, String table) {
    sql.query(Events.targetTable(table));
    sql.query("SYSTEM STOP MERGES " + table);
    return new Stored(sql, table);
  }

  /** Every row as queries see it in the exactly-once layout ({@code FINAL}). */
  private List<Row> rowsFinal() {
    List<Row> rows = new ArrayList<>();
    for (JsonNode row :
        sql.jsonRows(
            "SELECT _pubsub_subscription AS subscription, _pubsub_message_id AS message_id,"
                + " _pubsub_row_index AS row_index, id, name, toString(amount) AS amount,"
                + " toString(at) AS at, _pubsub_attributes AS attributes,"
                + " _pubsub_ordering_key AS ordering_key FROM "
                + table
                + " FINAL")) {
      rows.add(
          new Row(
              row.get("subscription").asText(),
              row.get("message_id").asText(),
              row.get("row_index").asLong(),
              EventValues.stored(row),
              Map.copyOf(JsonValues.texts(row.get("attributes"))),
              row.get("ordering_key").asText()));
    }
    return rows;
  }

  /**
   * Asserts that {@code FINAL} holds exactly the {@code expected} rows, naming the rows that are
   * missing (dropped) apart from those nobody published (duplicated or misrouted).
   */
  void assertHoldsExactly(List<Row> expected) {
    List<Row> actual = rowsFinal();
    List<Row> missing = new ArrayList<>(expected);
    actual.forEach(missing::remove);
    List<Row> unexpected = new ArrayList<>(actual);
    expected.forEach(unexpected::remove);
    assertThat(missing)
        .as(table + ": published rows missing (of " + expected.size() + ")")
        .isEmpty();
    assertThat(unexpected).as(table + ": rows stored that were not published so").isEmpty();
  }

  /** Rows as written, redelivered copies included (merges are stopped). */
  long written() {
    return sql.number("SELECT count() FROM " + table);
  }

  /**
   * Which inserts wrote a row that another insert had written too: one line per part (merges are
   * stopped, so a part is one insert) with the earliest time the service read one of those rows
   * ({@code _ingested_at}), how many such rows it holds and their event ids; "none" when no row was
   * written twice. For a failure message, so that a redelivery can be told apart by when it came.
   */
  String writtenMoreThanOnce() {
    StringBuilder lines = new StringBuilder();
    for (JsonNode part :
        sql.jsonRows(
            "SELECT _part AS part, toString(min(_ingested_at)) AS first, count() AS rows,"
                + " min(id) AS min_id, max(id) AS max_id FROM "
                + table
                + " WHERE (_pubsub_message_id, _pubsub_row_index) IN (SELECT _pubsub_message_id,"
                + " _pubsub_row_index FROM "
                + table
                + " GROUP BY 1, 2 HAVING count() > 1) GROUP BY _part ORDER BY first")) {
      lines.append(
          String.format(
              "%n  %s, read from %s on: %s rows, event ids %s..%s",
              part.get("part").asText(),
              part.get("first").asText(),
              part.get("rows").asText(),
              part.get("min_id").asText(),
              part.get("max_id").asText()));
    }
    return lines.length() == 0 ? "none" : lines.toString();
  }

  long countFinal() {
    return sql.number("SELECT count() FROM " + table + " FINAL");
  }

  /** A dead-letter table's records. */
  record DeadLetter(String rawMessage, String errorMessage, String stackTrace) {}

  List<DeadLetter> deadLetters() {
    List<DeadLetter> records = new ArrayList<>();
    for (JsonNode row :
        sql.jsonRows("SELECT raw_message, error_message, stack_trace FROM " + table)) {
      records.add(
          new DeadLetter(
              row.get("raw_message").asText(),
              row.get("error_message").asText(),
              row.get("stack_trace").asText()));
    }
    return records;
  }

  /**
   * Waits until {@code FINAL} holds {@code expected} rows and nothing more has been written for a
   * while (a redelivery the emulator still had in flight would land within it); returns as soon as
   * FINAL holds more than expected, so that the caller's comparison names the extra rows.
   */
  void awaitSettled(long expected, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long lastWritten = -1;
    long stableSince = System.nanoTime();
    while (System.nanoTime() < deadline) {
      Long finalCount = sql.numberOrNull("SELECT count() FROM " + table + " FINAL");
      Long written = sql.numberOrNull("SELECT count() FROM " + table);
      if (finalCount != null && finalCount > expected) {
        return;
      }
      if (written == null || written != lastWritten) {
        lastWritten = written == null ? -1 : written;
        stableSince = System.nanoTime();
      } else if (finalCount == expected
          && System.nanoTime() - stableSince > Duration.ofMillis(1_500).toNanos()) {
        return;
      }
      Thread.sleep(100);
    }
  }

  /**
   * Waits until at least {@code count} rows were written (redelivered copies included); a
   * ClickHouse that does not answer counts as not yet. Fails when the timeout passes first: the
   * callers kill, compare or count next, and a step that never happened must not pass as one.
   */
  void awaitAtLeast(long count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Long rows = null;
    while (System.nanoTime() < deadline) {
      rows = sql.numberOrNull("SELECT count() FROM " + table);
      if (rows != null && rows >= count) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError(
        table
            + ": "
            + (rows == null ? "ClickHouse did not answer, so none" : rows)
            + " of at least "
            + count
            + " rows written in "
            + timeout.toMillis()
            + " ms");
  }
}
