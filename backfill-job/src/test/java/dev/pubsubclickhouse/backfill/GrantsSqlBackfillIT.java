package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.fields;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.GrantsSqlUser;
import dev.pubsubclickhouse.testing.TestDatabase;
import dev.pubsubclickhouse.testing.bigquery.BigQueryTable;
import dev.pubsubclickhouse.testing.bigquery.LocalBigQuery;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The backfill logged in as the user of sql/grants.sql: it creates its checkpoint tables beside
 * sql/logs.sql's table, writes every row, and a second execution of the same source finds them done
 * and writes nothing again. It fails when the file lacks a grant the job uses.
 */
@ClickHouseTest
class GrantsSqlBackfillIT {
  private static final String PROJECT = "test-project";

  private final TestDatabase database;

  GrantsSqlBackfillIT(TestDatabase database) {
    this.database = database;
  }

  @Test
  void theJobWritesAndResumesWithTheseGrantsAlone() throws Exception {
    ClickHouseServer login = GrantsSqlUser.on(database);
    try (LocalBigQuery bigQuery = LocalBigQuery.forTests(PROJECT)) {
      BigQueryTable logs =
          bigQuery.table(
              "ds",
              "logs",
              fields("event_time DATETIME", "service STRING", "level STRING", "message STRING"));
      for (int i = 0; i < 12; i++) {
        logs.rows.add(row(String.format("2026-01-15T12:00:%02d", i), "api", "INFO", "m" + i));
      }
      Map<String, String> env = login.environment("realtime");
      env.put("PAGE_READER", "rest");
      env.put("BIGQUERY_ENDPOINT", bigQuery.endpoint());
      env.put("GOOGLE_CLOUD_PROJECT", PROJECT);
      env.put("OUTPUT_DEADLETTER_TABLE", "realtime.logs_dead_letter");
      String[] args = {"--inputTableSpec=" + PROJECT + ":ds.logs", "--clickHouseTable=logs"};

      JobRun first = JobRun.of(env, args);
      JobRun second = JobRun.of(env, args);

      first.assertSucceeded();
      second.assertSucceeded();
      assertThat(
              database.query(
                  "SELECT groupArray(message) FROM (SELECT message FROM realtime.logs"
                      + " ORDER BY event_time)"))
          .isEqualTo("['m0','m1','m2','m3','m4','m5','m6','m7','m8','m9','m10','m11']");
      assertThat(database.query("SELECT count() FROM realtime._backfill_checkpoints"))
          .isNotEqualTo("0");
      assertThat(first.output()).doesNotContain("ACCESS_DENIED");
    }
  }
}
