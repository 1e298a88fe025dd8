package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.IntegrationFixtures.concurrently;
import static dev.pubsubclickhouse.function.IntegrationFixtures.createDeadLetterTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Routing by attribute against the real ClickHouse: one service writes three tables, one INSERT per
 * table per batch (counted in system.query_log), and a message naming a table it may not write goes
 * to the dead letters with the reason, never costing the others.
 */
@ClickHouseTest
class RoutingIT {
  private final TestDatabase database;

  RoutingIT(TestDatabase database) {
    this.database = database;
  }

  @Test
  void threeTablesFromOneServiceOneInsertPerTablePerBatchAndBadNamesDeadLettered()
      throws Exception {
    database.execute(
        "CREATE TABLE events (id UInt32, kind String, _pubsub_message_id String)"
            + " ENGINE = MergeTree ORDER BY id");
    database.execute(
        "CREATE TABLE clicks (id UInt32, x Int32, _pubsub_message_id String)"
            + " ENGINE = MergeTree ORDER BY id");
    database.execute(
        "CREATE TABLE views (id UInt32, page String, _pubsub_message_id String)"
            + " ENGINE = MergeTree ORDER BY id");
    createDeadLetterTable(database, "routed_dead");
    List<Callable<Integer>> requests = new ArrayList<>();
    List<Integer> statuses;
    try (RunningService service =
        RunningService.start(
            database,
            "events",
            Map.of(
                "CLICKHOUSE_TABLE_ATTRIBUTE", "table",
                "CLICKHOUSE_TABLES", "clicks," + database.name() + ".views,gone",
                "CLICKHOUSE_DEAD_LETTER_TABLE", "routed_dead",
                "BATCH_LINGER_MS", "1500",
                "BATCH_MAX_WAIT_MS", "5000"))) {
      for (int i = 0; i < 10; i++) {
        int id = i;
        requests.add(
            () ->
                service.push(
                    "e-" + id, bytes("{\"id\":" + id + ",\"kind\":\"k" + id + "\"}"), Map.of()));
        requests.add(
            () ->
                service.push(
                    "c-" + id,
                    bytes("{\"id\":" + id + ",\"x\":" + -id + "}"),
                    Map.of("table", "clicks")));
        requests.add(
            () ->
                service.push(
                    "v-" + id,
                    bytes("{\"id\":" + id + ",\"page\":\"/p" + id + "\"}"),
                    Map.of("table", "views")));
      }
      requests.add(() -> service.push("bad", bytes("{\"id\":100}"), Map.of("table", "a b")));
      requests.add(() -> service.push("unknown", bytes("{\"id\":101}"), Map.of("table", "other")));
      requests.add(() -> service.push("gone", bytes("{\"id\":102}"), Map.of("table", "gone")));
      statuses = concurrently(requests);
    }
    assertThat(statuses).containsOnly(204);
    assertThat(
            database.query("SELECT groupArray((id, kind)) FROM (SELECT * FROM events ORDER BY id)"))
        .isEqualTo(expected(i -> "(" + i + ",'k" + i + "')"));
    assertThat(database.query("SELECT groupArray((id, x)) FROM (SELECT * FROM clicks ORDER BY id)"))
        .isEqualTo(expected(i -> "(" + i + "," + -i + ")"));
    assertThat(
            database.query("SELECT groupArray((id, page)) FROM (SELECT * FROM views ORDER BY id)"))
        .isEqualTo(expected(i -> "(" + i + ",'/p" + i + "')"));
    String db = database.name();
    assertThat(
            database.query(
                "SELECT raw_message, error_message FROM routed_dead ORDER BY raw_message"))
        .isEqualTo(
            "{\"id\":100}\tattribute table does not name a table: table name \\'a b\\' is invalid:"
                + " use 1 to 255 letters, digits, \\'_\\', \\'$\\' or \\'-\\'\n"
                + "{\"id\":101}\tattribute table names table "
                + db
                + ".other, which is not one of CLICKHOUSE_TABLES ("
                + db
                + ".clicks, "
                + db
                + ".gone, "
                + db
                + ".views)\n"
                + "{\"id\":102}\tattribute table names a table that cannot be written: table "
                + db
                + ".gone does not exist or is not visible to this user");
    database.flushLogs();
    assertThat(
            database.query(
                "SELECT groupArray((t, n)) FROM (SELECT arrayJoin(tables) AS t, count() AS n"
                    + " FROM system.query_log WHERE type = 'QueryFinish' AND query_kind = 'Insert'"
                    + " AND current_database = currentDatabase() AND has(databases, currentDatabase())"
                    + " GROUP BY t ORDER BY t)"))
        .as("each table's messages came as one batch: one INSERT each, one for the dead letters")
        .isEqualTo(
            "[('"
                + db
                + ".clicks',1),('"
                + db
                + ".events',1),('"
                + db
                + ".routed_dead',1),('"
                + db
                + ".views',1)]");
  }

  @Test
  void aTableSlowToWriteHoldsUpOnlyItsOwnMessages() throws Exception {
    database.execute("CREATE TABLE quick (id String) ENGINE = MergeTree ORDER BY id");
    database.execute("CREATE TABLE slow (id String) ENGINE = MergeTree ORDER BY id");
    database.execute(
        "CREATE TABLE slow_copy (id String, slept UInt8) ENGINE = MergeTree ORDER BY id");
    long slowMillis = 2000; // each INSERT into slow waits for its view
    database.execute(
        "CREATE MATERIALIZED VIEW slow_view TO slow_copy AS SELECT id, sleepEachRow("
            + slowMillis / 1000.0
            + ") AS slept FROM slow");
    try (RunningService service =
        RunningService.start(
            database,
            "quick",
            Map.of("CLICKHOUSE_TABLE_ATTRIBUTE", "table", "CLICKHOUSE_TABLES", "slow"))) {
      CompletableFuture<Integer> s1 = pushToSlow(service, "s1");
      awaitWaiting(service, 1); // s1's INSERT is in flight
      for (int i = 0; i < 3; i++) {
        long sent = System.nanoTime();
        assertThat(service.push("q" + i, bytes("{\"id\":\"q" + i + "\"}"), Map.of()))
            .isEqualTo(204);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent))
            .as("a message for the quick table does not wait for an INSERT into slow")
            .isLessThan(slowMillis / 4);
      }
      assertThat(s1).as("the INSERT into slow is still in flight").isNotDone();
      assertThat(s1.get(30, TimeUnit.SECONDS)).isEqualTo(204);
    }
    assertThat(database.query("SELECT id FROM quick ORDER BY id").lines().toList())
        .containsExactly("q0", "q1", "q2");
    assertThat(database.query("SELECT id FROM slow")).isEqualTo("s1");
    assertThat(database.query("SELECT id FROM slow_copy")).isEqualTo("s1");
  }

  private static CompletableFuture<Integer> pushToSlow(RunningService service, String id) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return service.push(id, bytes("{\"id\":\"" + id + "\"}"), Map.of("table", "slow"));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /** Until the service holds {@code count} requests unanswered. */
  private static void awaitWaiting(RunningService service, int count) throws Exception {
    while (!service
        .get("/metrics")
        .body()
        .contains("pubsub_clickhouse_waiting_requests " + count + ".0\n")) {
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  @Test
  void aTableAttributeWithoutAnAllowListStopsStart() {
    assertThatThrownBy(
            () ->
                RunningService.start(
                    database, "events", Map.of("CLICKHOUSE_TABLE_ATTRIBUTE", "table")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "CLICKHOUSE_TABLES: is required with CLICKHOUSE_TABLE_ATTRIBUTE: list the tables a"
                + " message may name");
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String expected(java.util.function.IntFunction<String> row) {
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      rows.add(row.apply(i));
    }
    return "[" + String.join(",", rows) + "]";
  }
}
