package dev.pubsubclickhouse.replay.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.replay.Run;
import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.GrantsSqlUser;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code replay.jar table} logged in as the user of sql/grants.sql: it reads the dead letters of
 * sql/dead_letter_table.sql, writes them to sql/logs.sql's table and deletes them. It fails when
 * the file lacks a grant replay uses.
 */
@ClickHouseTest
class GrantsSqlReplayIT {
  private final TestDatabase database;

  GrantsSqlReplayIT(TestDatabase database) {
    this.database = database;
  }

  @Test
  void replayWritesBackAndDeletesTheDeadLettersWithTheseGrantsAlone() {
    ClickHouseServer login = GrantsSqlUser.on(database);
    database.execute(
        "INSERT INTO realtime.logs_dead_letter (raw_message, error_message, stack_trace,"
            + " failed_at, message_id) VALUES ('{\"event_time\":\"2026-01-15T12:34:56Z\","
            + "\"service\":\"api\",\"level\":\"WARN\",\"message\":\"fixed\"}',"
            + " 'column ''level'' (String) rejects (missing)', '', now() - 60, 'm-1')");

    Map<String, String> env = login.environment("realtime");
    env.put("CLICKHOUSE_TABLE", "logs");
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "logs_dead_letter");
    Run run = Run.of(env, "table", "--maxPerSecond=0");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(
            database.query(
                "SELECT toString(event_time, 'UTC'), service, level, message FROM realtime.logs"))
        .as(run.toString())
        .isEqualTo("2026-01-15 12:34:56\tapi\tWARN\tfixed");
    assertThat(database.query("SELECT count() FROM realtime.logs_dead_letter")).isEqualTo("0");
  }
}
