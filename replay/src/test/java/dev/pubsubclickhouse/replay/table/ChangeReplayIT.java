package dev.pubsubclickhouse.replay.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.replay.Run;
import dev.pubsubclickhouse.replay.table.Letters.Letter;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Debezium dead letters replayed with PAYLOAD_FORMAT=debezium: read as change events and routed by
 * their source table, as the service reads them, and written with their versions.
 */
@ClickHouseTest
class ChangeReplayIT {
  private static final Instant T0 = Instant.parse("2026-01-15T10:00:00Z");

  private final TestDatabase database;

  ChangeReplayIT(TestDatabase database) {
    this.database = database;
  }

  /** The latest-state table items, the default table other, and the dead letters items_dead. */
  @BeforeEach
  void freshTables() {
    for (String table : List.of("items", "other", "items_dead", "_cdc_truncate_marks")) {
      database.execute("DROP TABLE IF EXISTS " + table + " SYNC");
    }
    database.execute(
        "CREATE TABLE items (id Int32, name String, __op String, __version UInt64,"
            + " __is_deleted UInt8) ENGINE = ReplacingMergeTree(__version, __is_deleted)"
            + " ORDER BY id");
    database.execute("CREATE TABLE other (id Int32) ENGINE = MergeTree ORDER BY id");
    Letters.createDeadLetterTable(dev.pubsubclickhouse.testing.Sql.of(database), "items_dead");
  }

  /** Replay of items_dead with PAYLOAD_FORMAT=debezium, public.items routed to items. */
  private Map<String, String> replayEnvironment() {
    Map<String, String> env = database.server().environment(database.name());
    env.put("CLICKHOUSE_TABLE", "other");
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "items_dead");
    env.put("PAYLOAD_FORMAT", "debezium");
    env.put("CDC_TABLES", "public.items=items");
    return env;
  }

  private static String change(String op, int id, String name, long lsn) {
    String row = "{\"id\":" + id + ",\"name\":\"" + name + "\"}";
    return "{\"before\":"
        + (op.equals("d") ? row : "null")
        + ",\"after\":"
        + (op.equals("d") ? "null" : row)
        + ",\"source\":{\"version\":\"2.5.0.Final\",\"connector\":\"postgresql\","
        + "\"name\":\"pg\",\"ts_ms\":1,\"snapshot\":\"false\",\"db\":\"postgres\","
        + "\"schema\":\"public\",\"table\":\"items\",\"txId\":7,\"lsn\":"
        + lsn
        + ",\"xmin\":null},\"op\":\""
        + op
        + "\",\"ts_ms\":2}";
  }

  @Test
  void changeEventsGoBackToTheirSourceTablesTargetWithTheirVersions() {
    String reason = "source table public.items (postgresql) is not one of CDC_TABLES ()";
    List<Letter> letters =
        List.of(
            Letters.letter(1, reason, T0).withData(change("u", 1, "second", 200)),
            Letters.letter(2, reason, T0.plusSeconds(1)).withData(change("c", 1, "first", 100)),
            Letters.letter(3, reason, T0.plusSeconds(2)).withData(change("c", 2, "two", 150)),
            Letters.letter(4, reason, T0.plusSeconds(3)).withData(change("d", 2, "two", 160)));
    Letters.insert(dev.pubsubclickhouse.testing.Sql.of(database), "items_dead", letters);
    Map<String, String> env = replayEnvironment();

    Run run = Run.of(env, "table", "--maxPerSecond=0");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(
            database.query(
                "SELECT id, name, __op, __version, __is_deleted FROM items FINAL ORDER BY id"))
        .as("FINAL drops the deleted key")
        .isEqualTo("1\tsecond\tu\t200\t0");
    assertThat(
            database.query(
                "SELECT id, name, __op, __version, __is_deleted FROM items WHERE id = 2"
                    + " ORDER BY __version DESC LIMIT 1"))
        .as("the delete row, built from before")
        .isEqualTo("2\ttwo\td\t160\t1");
    assertThat(database.count("other")).isZero();
    assertThat(database.count("items_dead")).isZero();
  }

  @Test
  void aChangeOlderThanATruncateTheServiceAppliedIsNotWrittenBack() {
    // The service applied a truncate at 150: its mark is stored, its DELETE ran.
    database.execute(
        "CREATE TABLE _cdc_truncate_marks (target String, version UInt64,"
            + " marked_at DateTime64(3, 'UTC') DEFAULT now64(3))"
            + " ENGINE = ReplacingMergeTree(version) ORDER BY target");
    database.execute(
        "INSERT INTO _cdc_truncate_marks (target, version) VALUES ('"
            + database.name()
            + ".items', 150)");
    String reason = "ClickHouse did not answer";
    Letters.insert(
        dev.pubsubclickhouse.testing.Sql.of(database),
        "items_dead",
        List.of(
            Letters.letter(1, reason, T0).withData(change("c", 1, "before", 100)),
            Letters.letter(2, reason, T0.plusSeconds(1)).withData(change("c", 2, "after", 200))));
    Map<String, String> env = replayEnvironment();

    Run run = Run.of(env, "table", "--maxPerSecond=0");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(database.query("SELECT id, name, __version FROM items FINAL ORDER BY id"))
        .isEqualTo("2\tafter\t200");
    assertThat(database.count("items_dead")).isZero();
  }

  @Test
  void aDryRunOfATruncateDeletesNothingAndStoresNoMark() {
    database.execute(
        "INSERT INTO items VALUES (1, 'kept', 'c', 100, 0), (2, 'kept too', 'c', 110, 0)");
    String truncate =
        "{\"before\":null,\"after\":null,\"source\":{\"version\":\"2.5.0.Final\","
            + "\"connector\":\"postgresql\",\"name\":\"pg\",\"ts_ms\":1,\"snapshot\":\"false\","
            + "\"db\":\"postgres\",\"schema\":\"public\",\"table\":\"items\",\"txId\":8,"
            + "\"lsn\":500,\"xmin\":null},\"op\":\"t\",\"ts_ms\":2}";
    Letters.insert(
        dev.pubsubclickhouse.testing.Sql.of(database),
        "items_dead",
        List.of(
            Letters.letter(1, "ClickHouse did not answer", T0).withData(truncate),
            Letters.letter(2, "ClickHouse did not answer", T0.plusSeconds(1))
                .withData(change("c", 3, "new", 600))));
    Map<String, String> env = replayEnvironment();

    Run run = Run.of(env, "table", "--dryRun", "--maxPerSecond=0");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(database.query("SELECT id, name, __version FROM items FINAL ORDER BY id"))
        .as("a dry run leaves the target as it was")
        .isEqualTo("1\tkept\t100\n2\tkept too\t110");
    assertThat(
            database.query(
                "SELECT count() FROM system.tables WHERE database = currentDatabase()"
                    + " AND name = '_cdc_truncate_marks'"))
        .as("and creates no marks table")
        .isEqualTo("0");
    assertThat(database.count("items_dead")).isEqualTo(2);
  }
}
