package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.DebeziumEvents.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.messages.cdc.TruncateMarkTable;
import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.GrantsSqlUser;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A truncate run by a user that may not see every view on the target: the user of sql/grants.sql,
 * whose tables stand for a history table (realtime.logs_dead_letter, where it may delete), the
 * latest-state table a view fills from it (realtime.logs) and the marks table.
 */
@ClickHouseTest
class CdcGrantsIT {
  private final TestDatabase database;

  CdcGrantsIT(TestDatabase database) {
    this.database = database;
  }

  private static ObjectNode source(long lsn) {
    return postgresSource("public", "hist", lsn, lsn, lsn);
  }

  @Test
  void aTruncateWhoseViewTheUserCannotSeeIsNotAcknowledged() throws Exception {
    ClickHouseServer login = GrantsSqlUser.on(database);
    database.execute("DROP TABLE realtime.logs SYNC");
    database.execute("DROP TABLE realtime.logs_dead_letter SYNC");
    database.execute(
        "CREATE TABLE realtime.logs_dead_letter (id Int32, name String, __version UInt64,"
            + " __is_deleted UInt8) ENGINE = ReplacingMergeTree ORDER BY (id, __version)");
    database.execute(
        "CREATE TABLE realtime.logs AS realtime.logs_dead_letter"
            + " ENGINE = ReplacingMergeTree(__version, __is_deleted) ORDER BY id");
    database.execute(
        "CREATE MATERIALIZED VIEW realtime.history_to_latest TO realtime.logs"
            + " AS SELECT * FROM realtime.logs_dead_letter");
    database.execute(
        TruncateMarkTable.createStatement(new TableName("realtime", "_backfill_checkpoints")));
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", login.url());
    env.put("CLICKHOUSE_USER", login.user());
    env.put("CLICKHOUSE_PASSWORD", login.password());
    env.put("CLICKHOUSE_DATABASE", "realtime");
    env.put("CLICKHOUSE_TABLE", "logs_dead_letter");
    env.put("PAYLOAD_FORMAT", "debezium");
    env.put("CDC_TABLES", "public.hist=logs_dead_letter");
    env.put("CDC_TRUNCATE_MARKS_TABLE", "_backfill_checkpoints");
    env.put("BATCH_MAX_WAIT_MS", "20");
    env.put("SUMMARY_INTERVAL_SECONDS", "3600");
    try (RunningService service = RunningService.start(env)) {
      ObjectNode create = payload("c", null, row("id", 1, "name", "before"), source(100));
      assertThat(push(service, "c1", create)).isEqualTo(204);
      assertThat(database.query("SELECT id, name, __version FROM realtime.logs FINAL"))
          .isEqualTo("1\tbefore\t100");
      // Acknowledged, the truncate would leave the row in the latest state for good.
      assertThat(push(service, "t", payload("t", null, null, source(200)))).isBetween(500, 599);
    }
  }
}
