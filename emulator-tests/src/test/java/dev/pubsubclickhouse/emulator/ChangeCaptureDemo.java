package dev.pubsubclickhouse.emulator;

import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.Sql;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The source side of {@code scripts/demo --cdc}: a throw-away PostgreSQL captured by Debezium, its
 * events published to the emulator's topic, and after each step the latest state in ClickHouse
 * printed beside Postgres' own rows. The script starts ClickHouse, the emulator, the service and
 * the push subscription; this program waits for each step to arrive.
 *
 * <p>Arguments: the emulator's endpoint, project, topic, ClickHouse URL and database (user and
 * password in CLICKHOUSE_USER and CLICKHOUSE_PASSWORD).
 */
public final class ChangeCaptureDemo {
  private static final String POSTGRES =
      "SELECT id, customer, trim_scale(amount)::text, length(note) FROM orders ORDER BY id";
  private static final String LATEST =
      "SELECT id, customer, amount, length(note) FROM orders FINAL WHERE __is_deleted = 0"
          + " ORDER BY id";

  private ChangeCaptureDemo() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      throw new IllegalArgumentException(
          "arguments: emulator-endpoint project topic clickhouse-url database");
    }
    PubSubRest pubsub = new PubSubRest(args[0], args[1]);
    Sql clickHouse =
        new Sql(
            args[3],
            System.getenv().getOrDefault("CLICKHOUSE_USER", "default"),
            System.getenv().getOrDefault("CLICKHOUSE_PASSWORD", ""),
            args[4]);
    String longNote = "a long note that Postgres keeps out of line. ".repeat(200);
    try (ThrowAwayPostgres postgres = ThrowAwayPostgres.start();
        Connection connection = postgres.connect();
        Statement db = connection.createStatement()) {
      System.out.println("PostgreSQL on 127.0.0.1:" + postgres.port() + " (wal_level=logical)");
      run(
          db,
          "CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL,"
              + " amount numeric(12, 2), placed timestamp(6), day date, note text)",
          "ALTER TABLE orders ALTER COLUMN note SET STORAGE EXTERNAL",
          "CREATE TABLE audit (id int PRIMARY KEY, what text)",
          "INSERT INTO orders VALUES (1, 'Ann', 10.50, '2026-01-01 10:00:00', '2026-01-01', '"
              + longNote
              + "'), (2, 'Bob', 20, now(), current_date, 'short'), (3, 'Cy', 30, now(), current_date, NULL)");
      try (DebeziumToPubSub capture =
          DebeziumToPubSub.start(
              postgres, Set.of("public.orders", "public.audit"), Set.of(), pubsub, args[2])) {
        show("Debezium's snapshot of the rows already there", db, clickHouse, capture);
        run(
            db,
            "INSERT INTO orders VALUES (4, 'Di', 40, now(), current_date, 'new')",
            "UPDATE orders SET amount = 11.25 WHERE id = 1",
            "DELETE FROM orders WHERE id = 2",
            "INSERT INTO orders VALUES (2, 'Bob again', 22, now(), current_date, NULL)");
        show(
            "insert, update (the long note unchanged: Debezium sends a placeholder), delete,"
                + " re-insert",
            db,
            clickHouse,
            capture);
        run(
            db,
            "TRUNCATE orders",
            "INSERT INTO orders VALUES (5, 'Ed', 50, now(), current_date, NULL)");
        show("truncate, insert", db, clickHouse, capture);
        run(db, "INSERT INTO audit VALUES (1, 'a table not in CDC_TABLES')");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (clickHouse.number(
                    "SELECT count() FROM dead_letters WHERE error_message LIKE '%public.audit%'")
                == 0
            && System.nanoTime() < deadline) {
          Thread.sleep(200);
        }
        System.out.println(
            "\n== A change of public.audit: the service refuses it, with the reason");
        System.out.println(clickHouse.query("SELECT error_message FROM dead_letters"));
      }
    }
  }

  private static void run(Statement db, String... statements) throws Exception {
    for (String statement : statements) {
      System.out.println(
          "postgres> "
              + (statement.length() > 110 ? statement.substring(0, 107) + "..." : statement));
      db.execute(statement);
    }
  }

  /** Waits until ClickHouse's latest state equals Postgres' rows, then prints both. */
  private static void show(String what, Statement db, Sql clickHouse, DebeziumToPubSub capture)
      throws Exception {
    List<String> expected = new ArrayList<>();
    try (ResultSet rows = db.executeQuery(POSTGRES)) {
      while (rows.next()) {
        expected.add(
            rows.getString(1)
                + "\t"
                + rows.getString(2)
                + "\t"
                + rows.getString(3)
                + "\t"
                + (rows.getString(4) == null ? "\\N" : rows.getString(4)));
      }
    }
    String wanted = String.join("\n", expected);
    String stored = "";
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      if (capture.failure() != null) {
        throw new IllegalStateException("Debezium stopped", capture.failure());
      }
      stored = clickHouse.query(LATEST);
      if (stored.equals(wanted)) {
        break;
      }
      Thread.sleep(200);
    }
    System.out.println("\n== " + what);
    System.out.println("Postgres:    " + POSTGRES);
    System.out.println(wanted.indent(2).stripTrailing());
    System.out.println("ClickHouse:  " + LATEST);
    System.out.println(
        clickHouse.query(LATEST + " FORMAT PrettyCompactMonoBlock").indent(2).stripTrailing());
    System.out.println(stored.equals(wanted) ? "(the same rows)" : "(NOT the same rows yet)");
  }
}
