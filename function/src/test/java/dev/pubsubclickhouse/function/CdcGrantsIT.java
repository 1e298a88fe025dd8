package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.DebeziumEvents.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.messages.cdc.TruncateMarkTable;
import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.GrantsSqlUser;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The service run by the user of sql/grants.sql, which may delete from realtime.logs_dead_letter
 * (standing for a history table here) but not from realtime.logs, and may not see a view it has no
 * grant on. A user that cannot apply a truncate keeps the service unready, naming the grant: a
 * truncate or a snapshot's end would otherwise be answered 503 until Pub/Sub gives up on it.
 */
@ClickHouseTest
class CdcGrantsIT {
  private final TestDatabase database;
  private ClickHouseServer login;

  CdcGrantsIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeEach
  void tables() {
    login = GrantsSqlUser.on(database);
    database.execute("DROP TABLE realtime.logs SYNC");
    database.execute("DROP TABLE realtime.logs_dead_letter SYNC");
    createHistoryTable();
    database.execute(
        "CREATE TABLE realtime.logs AS realtime.logs_dead_letter"
            + " ENGINE = ReplacingMergeTree(__version, __is_deleted) ORDER BY id");
    database.execute(
        TruncateMarkTable.createStatement(new TableName("realtime", "_backfill_checkpoints")));
  }

  /** realtime.logs_dead_letter as a history table: every version of a row kept. */
  private void createHistoryTable() {
    database.execute(
        "CREATE TABLE realtime.logs_dead_letter (id Int32, name String, __version UInt64,"
            + " __is_deleted UInt8) ENGINE = ReplacingMergeTree ORDER BY (id, __version)");
  }

  private RunningService startUnready(String cdcTables) throws Exception {
    return startUnready(login.url(), cdcTables);
  }

  private RunningService startUnready(String url, String cdcTables) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", url);
    env.put("CLICKHOUSE_USER", login.user());
    env.put("CLICKHOUSE_PASSWORD", login.password());
    env.put("CLICKHOUSE_DATABASE", "realtime");
    env.put("PAYLOAD_FORMAT", "debezium");
    env.put("CDC_TABLES", cdcTables);
    env.put("CDC_TRUNCATE_MARKS_TABLE", "_backfill_checkpoints");
    env.put("BATCH_MAX_WAIT_MS", "20");
    env.put("SUMMARY_INTERVAL_SECONDS", "3600");
    return RunningService.startUnready(env);
  }

  private static ObjectNode source(String table, long lsn) {
    return postgresSource("public", table, lsn, lsn, lsn);
  }

  @Test
  void aViewOnTheTargetTheUserCannotSeeKeepsTheServiceUnready() throws Exception {
    database.execute(
        "CREATE MATERIALIZED VIEW realtime.history_to_latest TO realtime.logs"
            + " AS SELECT * FROM realtime.logs_dead_letter");
    try (RunningService service = startUnready("public.hist=logs_dead_letter")) {
      assertThat(service.unreadyReasonOnceItNames("history_to_latest"))
          .contains(
              "the ClickHouse user cannot apply truncates and snapshot ends (they delete the rows"
                  + " below their version): the view realtime.history_to_latest on"
                  + " realtime.logs_dead_letter is hidden from this user");
      // Acknowledged, a truncate would leave the rows the view copied in the latest state.
      ObjectNode create = payload("c", null, row("id", 1, "name", "kept"), source("hist", 100));
      assertThat(push(service, "c1", create)).isEqualTo(503);
    }
    assertThat(database.query("SELECT count() FROM realtime.logs_dead_letter")).isEqualTo("0");
  }

  @Test
  void aTargetTheUserMayNotDeleteFromKeepsTheServiceUnready() throws Exception {
    try (RunningService service = startUnready("public.hist=logs_dead_letter,public.latest=logs")) {
      assertThat(service.unreadyReasonOnceItNames("GRANT"))
          .endsWith(
              "the ClickHouse user cannot apply truncates and snapshot ends (they delete the rows"
                  + " below their version): GRANT ALTER DELETE ON realtime.logs"
                  + " (sql/grants.sql)");
    }
  }

  @Test
  void aTargetTheUserMayDeleteFromIsServedAndTruncated() throws Exception {
    try (RunningService service = startUnready("public.hist=logs_dead_letter")) {
      service.assertBecomesReady();
      ObjectNode create = payload("c", null, row("id", 1, "name", "before"), source("hist", 100));
      assertThat(push(service, "c1", create)).isEqualTo(204);
      assertThat(push(service, "t", payload("t", null, null, source("hist", 200)))).isEqualTo(204);
    }
    assertThat(database.query("SELECT count() FROM realtime.logs_dead_letter")).isEqualTo("0");
    assertThat(database.query("SELECT max(version) FROM realtime._backfill_checkpoints"))
        .isEqualTo("200");
  }

  @Test
  void aServerWithoutCheckGrantIsServedUnchecked() throws Exception {
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(login.url())) {
      // ClickHouse before 24.3 knows CHECK only as CHECK TABLE.
      proxy.failQueries("CHECK GRANT", 400, 62, "SYNTAX_ERROR");
      try (RunningService service =
          startUnready(proxy.url(), "public.hist=logs_dead_letter,public.latest=logs")) {
        service.assertBecomesReady();
        ObjectNode create =
            payload("c", null, row("id", 7, "name", "unchecked"), source("latest", 100));
        assertThat(push(service, "c1", create)).isEqualTo(204);
      }
      assertThat(proxy.faultedRequests()).isPositive();
    }
    assertThat(database.query("SELECT id, name, __version FROM realtime.logs"))
        .isEqualTo("7\tunchecked\t100");
  }

  @Test
  void aCheckGrantThatFailsForAWhileIsAskedAgain() throws Exception {
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(login.url())) {
      proxy.failQueries("CHECK GRANT", 500, 241, "MEMORY_LIMIT_EXCEEDED");
      try (RunningService service = startUnready(proxy.url(), "public.hist=logs_dead_letter")) {
        assertThat(service.unreadyReasonOnceItNames("MEMORY_LIMIT_EXCEEDED")).isNotEmpty();
        proxy.heal();
        service.assertBecomesReady();
        ObjectNode create = payload("c", null, row("id", 8, "name", "later"), source("hist", 100));
        assertThat(push(service, "c1", create)).isEqualTo(204);
      }
    }
    assertThat(database.query("SELECT id, name, __version FROM realtime.logs_dead_letter"))
        .isEqualTo("8\tlater\t100");
  }

  @Test
  void aTargetCreatedAfterTheStartIsNamedAsMissingThenServed() throws Exception {
    database.execute("DROP TABLE realtime.logs_dead_letter SYNC");
    try (RunningService service = startUnready("public.hist=logs_dead_letter")) {
      assertThat(service.unreadyReasonOnceItNames("logs_dead_letter"))
          .contains("table realtime.logs_dead_letter does not exist");
      createHistoryTable();
      service.assertBecomesReady();
    }
  }
}
