package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.PubSubEmulator;
import dev.pubsubclickhouse.testing.PubSubEmulatorTest;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real PostgreSQL captured by Debezium's embedded engine and Postgres connector, every change
 * event published to the Pub/Sub emulator as Debezium Server's Pub/Sub sink publishes it, pushed by
 * an ordered subscription to the service jar (PAYLOAD_FORMAT=debezium), written to ClickHouse.
 * Postgres itself is the oracle: its tables' final state equals the latest state in ClickHouse
 * ({@code FINAL}, deleted rows gone) value by value, and the history table holds each key's changes
 * in the order Postgres made them. Covered: a snapshot of rows that existed before capture began,
 * inserts, updates, an update that leaves a TOASTed text unchanged (REPLICA IDENTITY DEFAULT, so
 * Debezium sends a placeholder), deletes whose event holds only the key, a re-insert, a truncate,
 * events with and without the schema wrapper, and a change of a table not in CDC_TABLES (dead
 * letter, naming it) among the others. Skipped, saying why, where PostgreSQL is not installed.
 */
@ClickHouseTest
@PubSubEmulatorTest
class ChangeCaptureThroughEmulatorIT {
  private static final Duration ARRIVAL = Duration.ofSeconds(90);

  /** Postgres' rows in ClickHouse's text forms: no trailing zeros, microseconds always. */
  private static final String ORDERS =
      "SELECT id, customer, trim_scale(amount)::text, to_char(placed, 'YYYY-MM-DD"
          + " HH24:MI:SS.US'), note FROM orders ORDER BY id";

  private static final String CUSTOMERS =
      "SELECT id, name, score, active FROM customers ORDER BY id";

  private final TestDatabase database;
  private final Sql sql;
  private final PubSubRest pubsub;
  private final Random random = new Random(33);

  ChangeCaptureThroughEmulatorIT(TestDatabase database, PubSubEmulator emulator) {
    this.database = database;
    this.sql = Sql.of(database);
    this.pubsub = emulator.rest("cdc-through-emulator");
  }

  @BeforeAll
  static void postgresIsInstalled() {
    ThrowAwayPostgres.unavailable()
        .ifPresent(why -> Assumptions.abort("skipped: a real PostgreSQL is needed, and " + why));
  }

  @Test
  void clickHouseFollowsPostgresThroughDebeziumAndPubSub() throws Exception {
    createClickHouseTables();
    String bigNote = text(20_000);
    String otherNote = text(30_000);
    try (ThrowAwayPostgres postgres = ThrowAwayPostgres.start();
        Connection source = postgres.connect();
        Statement db = source.createStatement()) {
      // Rows before capture begins: Debezium's snapshot reads them (op r).
      db.execute(
          "CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(12, 2),"
              + " placed timestamp(6), note text)");
      // Stored out of line, uncompressed: an update that leaves it alone does not log it.
      db.execute("ALTER TABLE orders ALTER COLUMN note SET STORAGE EXTERNAL");
      db.execute(
          "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, score bigint,"
              + " active boolean NOT NULL)");
      db.execute("CREATE TABLE audit (id int PRIMARY KEY, what text)");
      for (int id = 1; id <= 5; id++) {
        db.execute(
            "INSERT INTO orders VALUES ("
                + id
                + ", 'customer "
                + id
                + "', "
                + id
                + "0.25, '2026-01-0"
                + id
                + " 10:11:12.123456', "
                + (id == 5 ? "'" + bigNote + "'" : id == 4 ? "NULL" : "'note " + id + "'")
                + ")");
      }
      db.execute(
          "INSERT INTO customers VALUES (1, 'Ann', 10, true), (2, 'Bob', NULL, false),"
              + " (3, 'Cy', -9007199254740993, true)");

      ServiceProcess service = startService();
      DebeziumToPubSub capture = null;
      try {
        pubsub.createTopic("changes");
        pubsub
            .subscription("changes-push", "changes")
            .pushTo(service.url())
            .unwrapped()
            .ordered()
            .create();
        capture =
            DebeziumToPubSub.start(
                postgres,
                Set.of("public.orders", "public.customers", "public.audit"),
                Set.of("public.customers"),
                pubsub,
                "changes");
        awaitRows("orders_latest", 5, capture, postgres);

        // Changes as they commit.
        db.execute(
            "INSERT INTO orders VALUES (6, 'customer 6', 60.5, '2026-02-06 00:00:00', 'six'),"
                + " (7, 'customer 7', 70, '2026-02-07 23:59:59.999999', '"
                + bigNote
                + "')");
        db.execute("UPDATE orders SET amount = 71.75 WHERE id = 7");
        db.execute("UPDATE orders SET customer = 'renamed 1' WHERE id = 1");
        db.execute("DELETE FROM orders WHERE id = 2");
        db.execute(
            "INSERT INTO orders VALUES (2, 'customer 2 again', 22.22, '2026-03-02 02:02:02',"
                + " NULL)");
        db.execute("DELETE FROM orders WHERE id = 3");
        db.execute("UPDATE orders SET note = '" + otherNote + "' WHERE id = 7");
        db.execute("UPDATE orders SET placed = '2026-04-07 07:07:07.7' WHERE id = 7");
        db.execute("UPDATE orders SET amount = amount + 1 WHERE id = 5");
        db.execute("INSERT INTO audit VALUES (1, 'not a CDC_TABLES table')");
        db.execute("UPDATE customers SET score = 11 WHERE id = 1");
        db.execute("DELETE FROM customers WHERE id = 2");
        db.execute("TRUNCATE customers");
        db.execute(
            "INSERT INTO customers VALUES (4, 'Di', 9223372036854775807, false),"
                + " (1, 'Ann again', 0, true)");

        List<List<String>> orders = postgresRows(db, ORDERS);
        List<List<String>> customers = postgresRows(db, CUSTOMERS);
        awaitEqual(
            orders,
            "SELECT id, customer, amount, placed, note FROM orders_latest FINAL"
                + " WHERE __is_deleted = 0 ORDER BY id",
            capture,
            postgres);
        awaitEqual(
            customers,
            "SELECT id, name, score, active FROM customers FINAL WHERE __is_deleted = 0"
                + " ORDER BY id",
            capture,
            postgres);
      } finally {
        if (capture != null) {
          capture.close();
        }
        Services.stop(service);
      }
    }
    // Every change of each key once, in the order Postgres made them.
    assertThat(
            sql.query(
                "SELECT id, arrayStringConcat(groupArray(__op), ',') FROM (SELECT id, __op FROM"
                    + " orders_history FINAL ORDER BY id, __version) GROUP BY id ORDER BY id"))
        .isEqualTo("1\tr,u\n2\tr,d,c\n3\tr,d\n4\tr\n5\tr,u\n6\tc\n7\tc,u,u,u");
    // The TOASTed note is the source's in every change, never Debezium's placeholder.
    assertThat(
            sql.query(
                "SELECT arrayStringConcat(groupArray(toString(length(note))), ',') FROM (SELECT"
                    + " note FROM orders_history FINAL WHERE id = 7 ORDER BY __version)"))
        .isEqualTo(
            bigNote.length()
                + ","
                + bigNote.length()
                + ","
                + otherNote.length()
                + ","
                + otherNote.length());
    assertThat(sql.number("SELECT count() FROM orders_history WHERE note LIKE '%unavailable%'"))
        .isZero();
    assertThat(sql.query("SELECT error_message FROM cdc_dead_letters"))
        .isEqualTo(
            "source table public.audit (postgresql) is not one of CDC_TABLES (public.customers,"
                + " public.orders)");
  }

  private void createClickHouseTables() {
    String meta =
        "__op LowCardinality(String), __version UInt64, __is_deleted UInt8, __lsn UInt64,"
            + " __source_ts_ms DateTime64(3, 'UTC'), __source_table String,"
            + " __transaction_id String, __ingested_at DateTime64(3, 'UTC')";
    // The history-and-latest-state pair of sql/cdc/history_and_latest_state.sql.
    sql.query(
        "CREATE TABLE orders_history (id Int32, customer String, amount Decimal(12, 2),"
            + " placed DateTime64(6, 'UTC'), note Nullable(String), "
            + meta
            + ") ENGINE = ReplacingMergeTree ORDER BY (id, __version)");
    sql.query(
        "CREATE TABLE orders_latest AS orders_history"
            + " ENGINE = ReplacingMergeTree(__version, __is_deleted) ORDER BY id");
    sql.query(
        "CREATE MATERIALIZED VIEW orders_latest_mv TO orders_latest AS"
            + " SELECT * FROM orders_history");
    // The latest state alone, as in sql/cdc/latest_state.sql.
    sql.query(
        "CREATE TABLE customers (id Int32, name String, score Nullable(Int64), active Bool, "
            + meta
            + ") ENGINE = ReplacingMergeTree(__version, __is_deleted) ORDER BY id");
    sql.query(Events.deadLetterTable("cdc_dead_letters"));
  }

  private ServiceProcess startService() throws Exception {
    Map<String, String> env =
        Services.writing(database.server(), database.name(), "orders_history");
    env.put("PAYLOAD_FORMAT", "debezium");
    env.put("CDC_TABLES", "public.orders=orders_history,public.customers=customers");
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "cdc_dead_letters");
    env.put("BATCH_MAX_WAIT_MS", "20");
    return Services.start("cdc", env);
  }

  /** Letters and digits that do not compress, so that Postgres keeps the text out of line. */
  private String text(int length) {
    StringBuilder text = new StringBuilder(length);
    String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ";
    for (int i = 0; i < length; i++) {
      text.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return text.toString();
  }

  private void awaitRows(
      String table, long rows, DebeziumToPubSub capture, ThrowAwayPostgres postgres)
      throws InterruptedException {
    long deadline = System.nanoTime() + ARRIVAL.toNanos();
    while (System.nanoTime() < deadline) {
      Long stored = sql.numberOrNull("SELECT count() FROM " + table + " FINAL");
      if (stored != null && stored >= rows) {
        return;
      }
      failIfStopped(capture, postgres);
      Thread.sleep(200);
    }
    throw new AssertionError(
        table
            + " did not get the snapshot's "
            + rows
            + " rows; events published: "
            + capture.published()
            + "\n"
            + postgres.log());
  }

  /** Waits until ClickHouse's rows equal {@code expected}, then asserts that they do. */
  private void awaitEqual(
      List<List<String>> expected,
      String query,
      DebeziumToPubSub capture,
      ThrowAwayPostgres postgres)
      throws InterruptedException {
    long deadline = System.nanoTime() + ARRIVAL.toNanos();
    List<List<String>> actual = clickHouseRows(query);
    while (!actual.equals(expected) && System.nanoTime() < deadline) {
      failIfStopped(capture, postgres);
      Thread.sleep(250);
      actual = clickHouseRows(query);
    }
    assertThat(actual)
        .as(query + " (events published: " + capture.published() + ")")
        .containsExactlyElementsOf(expected);
  }

  private static void failIfStopped(DebeziumToPubSub capture, ThrowAwayPostgres postgres) {
    if (capture.failure() != null) {
      throw new AssertionError("Debezium stopped:\n" + postgres.log(), capture.failure());
    }
  }

  private static List<List<String>> postgresRows(Statement db, String query) throws SQLException {
    List<List<String>> rows = new ArrayList<>();
    try (ResultSet result = db.executeQuery(query)) {
      int columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        List<String> row = new ArrayList<>();
        for (int column = 1; column <= columns; column++) {
          Object value = result.getObject(column);
          row.add(value == null ? "NULL" : value.toString());
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** ClickHouse's rows in the same text forms as {@link #postgresRows}. */
  private List<List<String>> clickHouseRows(String query) {
    List<List<String>> rows = new ArrayList<>();
    String text;
    try {
      text = sql.query(query + " SETTINGS format_tsv_null_representation = 'NULL'");
    } catch (IllegalStateException e) {
      return rows;
    }
    for (String line : text.split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      List<String> row = new ArrayList<>();
      for (String value : line.split("\t", -1)) {
        row.add(value);
      }
      rows.add(row);
    }
    return rows;
  }
}
