package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.DebeziumEvents.*;
import static dev.pubsubclickhouse.function.IntegrationFixtures.createDeadLetterTable;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A truncate holds across instances and restarts: a change older than it, written by an instance
 * that never applied it, is deleted from the history table and from the latest-state table a view
 * fills, and a newer one is kept. The stored rows are read back and compared with the source's.
 */
@ClickHouseTest
class CdcTruncateMarksIT {
  private static final String MARKS = "_cdc_truncate_marks";

  private final TestDatabase database;

  CdcTruncateMarksIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeEach
  void tables() {
    for (String table : List.of("hist_mv", "hist", "latest", "cdc_dead", MARKS)) {
      database.execute("DROP TABLE IF EXISTS " + table + " SYNC");
    }
    createHistoryAndLatestState(database);
  }

  private RunningService start() throws Exception {
    return RunningService.start(
        database,
        "hist",
        Map.of(
            "PAYLOAD_FORMAT", "debezium",
            "CDC_TABLES", "public.hist=hist",
            "BATCH_MAX_WAIT_MS", "20"));
  }

  private static ObjectNode create(int id, String name, long lsn) {
    return payload("c", null, row("id", id, "name", name), source(lsn));
  }

  private static ObjectNode truncate(long lsn) {
    return payload("t", null, null, source(lsn));
  }

  private static ObjectNode source(long lsn) {
    return postgresSource("public", "hist", lsn, lsn, lsn);
  }

  /** The history's live rows and the latest state's, each "id name version" sorted by id. */
  private String stored() {
    return rows("SELECT id, name, __version FROM hist FINAL ORDER BY id")
        + "|"
        + rows("SELECT id, name, __version FROM latest FINAL WHERE __is_deleted = 0 ORDER BY id");
  }

  @Test
  void anOlderChangeWrittenByAnotherInstanceAfterTheTruncateIsDeleted() throws Exception {
    try (RunningService a = start();
        RunningService b = start()) {
      assertThat(push(a, "c1", create(1, "before", 100))).isEqualTo(204);
      assertThat(push(a, "c2", create(2, "after", 300))).isEqualTo(204);
      assertThat(push(a, "t", truncate(200))).isEqualTo(204);
      // B never applied the truncate, and receives a change older than it.
      assertThat(push(b, "c3", create(3, "before too", 150))).isEqualTo(204);
      assertThat(push(b, "c4", create(4, "after too", 250))).isEqualTo(204);
      // Delivered again to B, now that B has read the mark: not written at all.
      assertThat(push(b, "c3", create(3, "before too", 150))).isEqualTo(204);
    }
    String expected = "2\tafter\t300\n4\tafter too\t250\n";
    assertThat(stored()).isEqualTo(expected + "|" + expected);
    assertThat(rows("SELECT target, version FROM " + MARKS))
        .isEqualTo(database.name() + ".hist\t200\n");
    // Read where another replica may not have the mark yet: with sequential consistency.
    assertThat(database.settingOfQueries("select_sequential_consistency", "%max(version)%"))
        .isEqualTo("1");
  }

  @Test
  void aFreshInstanceAfterTheTruncateDeletesAnOlderChange() throws Exception {
    // The table as sql/cdc/truncate_marks.sql makes it, for a service that may not create it.
    database.execute(
        Files.readString(Path.of("../sql/cdc/truncate_marks.sql"))
            .lines()
            .filter(line -> !line.startsWith("--"))
            .collect(Collectors.joining("\n"))
            .replace(";", ""));
    try (RunningService first = start()) {
      assertThat(push(first, "c1", create(1, "before", 100))).isEqualTo(204);
      assertThat(push(first, "t", truncate(200))).isEqualTo(204);
    }
    try (RunningService restarted = start()) {
      assertThat(push(restarted, "c3", create(3, "before too", 150))).isEqualTo(204);
      assertThat(push(restarted, "c5", create(5, "new", 500))).isEqualTo(204);
    }
    String expected = "5\tnew\t500\n";
    assertThat(stored()).isEqualTo(expected + "|" + expected);
  }

  @Test
  void aReSnapshotsEndHoldsForAnotherInstanceToo() throws Exception {
    try (RunningService a = start();
        RunningService b = start()) {
      assertThat(push(a, "c1", create(1, "ghost", 100))).isEqualTo(204);
      ObjectNode last = payload("r", null, row("id", 2, "name", "read again"), source(200));
      ((ObjectNode) last.get("source")).put("snapshot", "last");
      assertThat(push(a, "s2", last)).isEqualTo(204);
      assertThat(push(b, "c3", create(3, "ghost too", 150))).isEqualTo(204);
    }
    String expected = "2\tread again\t200\n";
    assertThat(stored()).isEqualTo(expected + "|" + expected);
  }

  @Test
  void aTruncateWhoseMarkCannotBeWrittenDeletesNothingAndIsNotAcknowledged() throws Exception {
    try (RunningService service = start()) {
      assertThat(push(service, "c1", create(1, "before", 100))).isEqualTo(204);
      database.execute("RENAME TABLE " + MARKS + " TO marks_away");

      assertThat(push(service, "t", truncate(200))).isBetween(500, 599);
      String untouched = "1\tbefore\t100\n";
      assertThat(stored()).as("no DELETE before the mark").isEqualTo(untouched + "|" + untouched);
      // Nor is a change acknowledged while its target's mark cannot be read.
      assertThat(push(service, "c3", create(3, "before too", 150))).isBetween(500, 599);

      database.execute("RENAME TABLE marks_away TO " + MARKS);
      // Pub/Sub delivers both again.
      assertThat(push(service, "t", truncate(200))).isEqualTo(204);
      assertThat(push(service, "c3", create(3, "before too", 150))).isEqualTo(204);
    }
    assertThat(stored()).isEqualTo("|");
    assertThat(rows("SELECT target, version FROM " + MARKS))
        .isEqualTo(database.name() + ".hist\t200\n");
  }

  @Test
  void aTruncateOfOneOfTwoSourceTablesOfOneTargetDeletesNoRowOfTheOther() throws Exception {
    // Postgres partitions published as themselves, each mapped to the one table.
    createDeadLetterTable(database, "cdc_dead");
    try (RunningService service =
        RunningService.start(
            database,
            "hist",
            Map.of(
                "PAYLOAD_FORMAT", "debezium",
                "CDC_TABLES", "public.hist_2024=hist,public.hist_2025=hist",
                "CLICKHOUSE_DEAD_LETTER_TABLE", "cdc_dead",
                "BATCH_MAX_WAIT_MS", "20"))) {
      ObjectNode live =
          payload("c", null, row("id", 1, "name", "of 2025"), partition("hist_2025", 100));
      assertThat(push(service, "c1", live)).isEqualTo(204);
      ObjectNode old =
          payload("c", null, row("id", 2, "name", "of 2024"), partition("hist_2024", 150));
      assertThat(push(service, "c2", old)).isEqualTo(204);
      // Retention truncates one partition; a re-snapshot of that partition alone ends.
      assertThat(push(service, "t", payload("t", null, null, partition("hist_2024", 200))))
          .isEqualTo(204);
      ObjectNode last =
          payload("r", null, row("id", 3, "name", "2024 again"), partition("hist_2024", 300));
      ((ObjectNode) last.get("source")).put("snapshot", "last");
      assertThat(push(service, "s3", last)).isEqualTo(204);
      // Delivered to the same instance after the truncate: still the other table's row.
      ObjectNode late =
          payload("c", null, row("id", 4, "name", "late of 2025"), partition("hist_2025", 120));
      assertThat(push(service, "c4", late)).isEqualTo(204);
    }
    String expected =
        "1\tof 2025\t100\n2\tof 2024\t150\n3\t2024 again\t300\n4\tlate of 2025\t120\n";
    assertThat(stored()).isEqualTo(expected + "|" + expected);
    assertThat(rows("SELECT error_message FROM cdc_dead"))
        .contains("op t (a truncate of public.hist_2024)")
        .contains("public.hist_2025");
    assertThat(rows("SELECT count() FROM " + MARKS)).isEqualTo("0\n");
  }

  private static ObjectNode partition(String table, long lsn) {
    return postgresSource("public", table, lsn, lsn, lsn);
  }

  @Test
  void aMarksTableTheServiceCannotReadKeepsItFromServing() throws Exception {
    database.execute(
        "CREATE TABLE " + MARKS + " (target String) ENGINE = MergeTree ORDER BY target");
    try (RunningService service =
        RunningService.startUnready(
            RunningService.environment(
                database,
                "hist",
                Map.of("PAYLOAD_FORMAT", "debezium", "CDC_TABLES", "public.hist=hist")))) {
      assertThat(service.unreadyReasonOnceItNames(MARKS))
          .contains(
              "truncate marks table "
                  + database.name()
                  + "."
                  + MARKS
                  + " (CDC_TRUNCATE_MARKS_TABLE) cannot be used: ")
          .contains("sql/cdc/truncate_marks.sql");
      assertThat(push(service, "c1", create(1, "kept for later", 100))).isBetween(500, 599);
    }
    assertThat(database.count("hist")).isZero();
  }

  @Test
  void aProfileThatForbidsSequentialConsistencyKeepsTheServiceUnreadyNamingIt() throws Exception {
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url())) {
      // As ClickHouse answers a user whose settings profile has a constraint on the setting.
      proxy.failQueries("SELECT toString(max(version))", 500, 452, "SETTING_CONSTRAINT_VIOLATION");
      Map<String, String> env =
          RunningService.environment(
              database,
              "hist",
              Map.of("PAYLOAD_FORMAT", "debezium", "CDC_TABLES", "public.hist=hist"));
      env.put("CLICKHOUSE_URL", proxy.url());
      try (RunningService service = RunningService.startUnready(env)) {
        assertThat(service.unreadyReasonOnceItNames("SETTING_CONSTRAINT_VIOLATION"))
            .contains("select_sequential_consistency")
            .contains("settings profile")
            .doesNotContain("GRANT SELECT, INSERT");
        assertThat(push(service, "c1", create(1, "kept for later", 100))).isBetween(500, 599);
      }
    }
    assertThat(database.count("hist")).isZero();
  }

  /** The rows of a query as TabSeparated lines, each ending in a newline. */
  private String rows(String sql) {
    String rows = database.query(sql);
    return rows.isEmpty() ? rows : rows + "\n";
  }
}
