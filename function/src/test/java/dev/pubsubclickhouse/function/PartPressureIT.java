package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.function.flow.TableLoad;
import dev.pubsubclickhouse.function.flow.TableLoadReader;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Flow control against a real ClickHouse: what the reader sees in the system tables, and one
 * service in front of a table with low part limits whose merges are stopped, so that every INSERT
 * adds a part that stays. The service must answer 429 before ClickHouse would refuse (code 252),
 * store every message it acknowledged, and take messages again once merges bring the parts down;
 * when that table is one of several, only its own messages are refused.
 */
@ClickHouseTest
class PartPressureIT {
  private static final String LIMITS =
      " SETTINGS parts_to_delay_insert = 10, parts_to_throw_insert = 20";

  private final TestDatabase database;

  PartPressureIT(TestDatabase database) {
    this.database = database;
  }

  @Test
  void theReaderSeesPartsPerPartitionTheTablesLimitsAndEveryBlockWritten() {
    database.execute(
        "CREATE TABLE watched (n UInt32, p UInt8) ENGINE = MergeTree PARTITION BY p ORDER BY n"
            + LIMITS);
    database.execute("SYSTEM STOP MERGES watched");
    TableLoadReader reader =
        new TableLoadReader(database.client(), new TableName(database.name(), "watched"));
    TableLoad empty = reader.read();
    for (int i = 0; i < 8; i++) {
      database.execute("INSERT INTO watched VALUES (" + i + ", " + (i < 6 ? 1 : 2) + ")");
    }
    TableLoad load = reader.read();
    assertThat(load.partitionParts()).isEqualTo(6);
    assertThat(load.activeParts()).isEqualTo(8);
    assertThat(load.partsToDelayInsert()).isEqualTo(10);
    assertThat(load.partsToThrowInsert()).isEqualTo(20);
    assertThat(load.maxPartsInTotal()).isEqualTo(100_000); // the server's default
    assertThat(load.blocksWritten() - empty.blocksWritten()).isEqualTo(8);
    assertThat(load.merges()).isZero();
    assertThat(load.pressure()).isEqualTo(0.6);
  }

  @Test
  void nearThePartLimitTheServiceAnswers429NotAFailureAndStoresEveryMessageItAcknowledged()
      throws Exception {
    database.execute("CREATE TABLE limited (id String) ENGINE = MergeTree ORDER BY id" + LIMITS);
    database.execute("SYSTEM STOP MERGES limited");
    Map<Integer, Integer> statuses = new TreeMap<>();
    TreeSet<String> acknowledged = new TreeSet<>();
    try (RunningService service =
        RunningService.start(database, "limited", Map.of("TABLE_WATCH_INTERVAL_MS", "100"))) {
      // One message at a time: each INSERT is a part that stays, until the service stops taking
      // them. 40 messages would be 40 parts; ClickHouse refuses from the 20th.
      for (int i = 0; i < 40; i++) {
        String id = "m-" + i;
        int status = service.push(id, "{\"id\":\"" + id + "\"}");
        statuses.merge(status, 1, Integer::sum);
        if (status == 204) {
          acknowledged.add(id);
        }
      }
      assertThat(statuses.keySet()).containsExactlyInAnyOrder(204, 429);
      assertThat(partsOf("limited")).isLessThan(20);

      // Merges bring the parts down; the service takes messages again.
      database.execute("SYSTEM START MERGES limited");
      database.execute("OPTIMIZE TABLE limited FINAL");
      int after = 0;
      for (int attempt = 0; attempt < 600 && after != 204; attempt++) {
        after = service.push("after", "{\"id\":\"after\"}");
        if (after != 204) {
          TimeUnit.MILLISECONDS.sleep(100);
        }
      }
      assertThat(after).isEqualTo(204);
      acknowledged.add("after");
    }
    assertNoInsertRefusedForTooManyParts();
    List<String> stored =
        new ArrayList<>(database.query("SELECT id FROM limited ORDER BY id").lines().toList());
    assertThat(stored).containsExactlyElementsOf(acknowledged);
  }

  @Test
  void aRoutedTableNearItsLimitIsRefusedAloneWhileTheDefaultTableTakesEveryMessage()
      throws Exception {
    database.execute("CREATE TABLE roomy (id String) ENGINE = MergeTree ORDER BY id");
    database.execute("CREATE TABLE crowded (id String) ENGINE = MergeTree ORDER BY id" + LIMITS);
    database.execute("SYSTEM STOP MERGES crowded");
    Map<String, Map<Integer, Integer>> statuses = new TreeMap<>();
    Map<String, TreeSet<String>> acknowledged = new TreeMap<>();
    try (RunningService service =
        RunningService.start(
            database,
            "roomy",
            Map.of(
                "TABLE_WATCH_INTERVAL_MS", "100",
                "CLICKHOUSE_TABLE_ATTRIBUTE", "table",
                "CLICKHOUSE_TABLES", "crowded"))) {
      // One message at a time, alternating tables: each INSERT into crowded is a part that stays.
      for (int i = 0; i < 40; i++) {
        for (String table : List.of("crowded", "roomy")) {
          String id = table + "-" + i;
          int status =
              service.push(
                  id,
                  ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8),
                  table.equals("crowded") ? Map.of("table", "crowded") : Map.of());
          statuses.computeIfAbsent(table, t -> new TreeMap<>()).merge(status, 1, Integer::sum);
          if (status == 204) {
            acknowledged.computeIfAbsent(table, t -> new TreeSet<>()).add(id);
          }
        }
      }
    }
    assertThat(statuses.get("crowded").keySet()).containsExactlyInAnyOrder(204, 429);
    assertThat(statuses.get("roomy"))
        .as("the default table is not held back")
        .isEqualTo(Map.of(204, 40));
    assertThat(partsOf("crowded")).isLessThan(20);
    assertNoInsertRefusedForTooManyParts();
    for (String table : List.of("crowded", "roomy")) {
      assertThat(database.query("SELECT id FROM " + table + " ORDER BY id").lines().toList())
          .as("stored in " + table)
          .containsExactlyElementsOf(acknowledged.get(table));
    }
  }

  @Test
  void aTablePacedByItsPartsHoldsUpOnlyItsOwnMessages() throws Exception {
    database.execute("CREATE TABLE quiet (id String) ENGINE = MergeTree ORDER BY id");
    database.execute(
        "CREATE TABLE paced (id String) ENGINE = MergeTree ORDER BY id"
            + " SETTINGS parts_to_delay_insert = 100, parts_to_throw_insert = 200");
    database.execute("SYSTEM STOP MERGES paced");
    for (int i = 0; i < 70; i++) {
      database.execute("INSERT INTO paced VALUES ('old-" + i + "')");
    }
    // 70 of 100 parts: 16 times the instance's 100 ms between INSERTs into it, not yet refusing
    long pacedMillis = 1600;
    try (RunningService service =
        RunningService.start(
            database,
            "quiet",
            Map.of(
                "TABLE_WATCH_INTERVAL_MS", "100",
                "MAX_INSERTS_PER_SECOND", "10",
                "CLICKHOUSE_TABLE_ATTRIBUTE", "table",
                "CLICKHOUSE_TABLES", "paced"))) {
      Map<String, String> toPaced = Map.of("table", "paced");
      assertThat(service.push("p1", "{\"id\":\"p1\"}".getBytes(StandardCharsets.UTF_8), toPaced))
          .isEqualTo(204);
      long p2Sent = System.nanoTime();
      CompletableFuture<Integer> p2 =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return service.push(
                      "p2", "{\"id\":\"p2\"}".getBytes(StandardCharsets.UTF_8), toPaced);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      while (!service.get("/metrics").body().contains("pubsub_clickhouse_waiting_requests 1.0\n")) {
        assertThat(p2).as("p2 waits for its pace").isNotDone();
        TimeUnit.MILLISECONDS.sleep(5);
      }
      for (int i = 0; i < 5; i++) {
        long sent = System.nanoTime();
        assertThat(service.push("r" + i, "{\"id\":\"r" + i + "\"}")).isEqualTo(204);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent))
            .as("a message for the quiet table does not wait out the paced table's pace")
            .isLessThan(pacedMillis / 2);
      }
      assertThat(p2.get(30, TimeUnit.SECONDS)).isEqualTo(204);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - p2Sent))
          .as("the paced table's second message waited for its pace (from p1's batch)")
          .isGreaterThanOrEqualTo(pacedMillis / 4);
    }
    assertNoInsertRefusedForTooManyParts();
    assertThat(database.query("SELECT id FROM quiet ORDER BY id").lines().toList())
        .containsExactly("r0", "r1", "r2", "r3", "r4");
    assertThat(
            database.query("SELECT id FROM paced WHERE id LIKE 'p%' ORDER BY id").lines().toList())
        .containsExactly("p1", "p2");
  }

  private void assertNoInsertRefusedForTooManyParts() {
    database.flushLogs();
    assertThat(
            database.query(
                "SELECT count() FROM system.query_log WHERE exception_code = 252"
                    + " AND has(databases, '"
                    + database.name()
                    + "')"))
        .as("INSERTs ClickHouse refused for too many parts")
        .isEqualTo("0");
  }

  private long partsOf(String table) {
    return Long.parseLong(
        database.query(
            "SELECT count() FROM system.parts WHERE active AND database = '"
                + database.name()
                + "' AND table = '"
                + table
                + "'"));
  }
}
