package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.fields;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * BigQuery or ClickHouse failing: a transient failure is retried, and one that lasts stops the job
 * naming the step that failed.
 */
interface ServiceFailureTests extends BackfillFixture {
  @Test
  default void aBigQueryServerErrorMidReadIsRetried() {
    idTables("flaky", 60, "");
    breakReadsTwice();

    JobRun run = copy(environment(), "flaky", "flaky", "--pageRows=20");

    run.assertSucceeded();
    assertThat(db().query("SELECT count(), uniqExact(id), min(id), max(id) FROM flaky"))
        .isEqualTo("60\t60\t0\t59");
  }

  /** Every step that talks to BigQuery meets one 503 (or UNAVAILABLE), and the job completes. */
  @Test
  default void aTransientFailureAtEachBigQueryStepIsRetried() {
    idTable("ds", "steps", 40).rows.add(row("300"));
    db().execute("CREATE TABLE steps (id UInt8) ENGINE = MergeTree ORDER BY id");
    bigQuery().table("backfill_dead_letters", "steps_error_records", DEAD_LETTER_FIELDS);
    String api = "/bigquery/v2/projects/test-project";
    bigQuery().failNext("GET " + api + "/datasets/ds/tables/steps", 503, 1);
    bigQuery().failNext("GET " + api + "/datasets/backfill_dead_letters", 503, 1);
    bigQuery().failNext(":testIamPermissions", 503, 1);
    if (rest()) {
      bigQuery().failNext("POST " + api + "/jobs", 503, 1);
      bigQuery().failNext("GET " + api + "/jobs/", 503, 1);
      bigQuery().failNext("GET " + api + "/datasets/_anon/tables/steps_snapshot1?", 503, 1);
      bigQuery().failNext("/data?", 503, 1);
    } else {
      storage().failCreates(1);
      storage().failReadsAtStart(1);
    }
    Map<String, String> env = environmentWithBigQueryDeadLetters();

    JobRun run = copy(env, "steps", "steps", "--pageRows=15");

    run.assertSucceeded();
    assertThat(bigQuery().unusedFaults()).isEmpty();
    assertThat(db().query("SELECT count(), uniqExact(id), min(id), max(id) FROM steps"))
        .isEqualTo("40\t40\t0\t39");
    assertThat(bigQuery().insertedRows()).hasSize(1);
    assertThat(insertedDeadLetter(0, "payloadString")).isEqualTo("{\"id\":300}");
  }

  @Test
  default void aBigQueryFailureThatPersistsNamesTheStepAndTheRequest() {
    sourceTable("down", fields("id INTEGER"), row("1"));
    db().execute("CREATE TABLE down (id UInt8) ENGINE = MergeTree ORDER BY id");
    bigQuery().failNext("GET /bigquery/v2/projects/test-project/datasets/ds/tables/down", 503, 100);

    JobRun run = copy(environment(), "down", "down");

    run.assertFailed()
        .contains(
            "backfill failed before reading: BigQuery tables.get (test-project:ds.down) failed"
                + " after 4 attempts: HTTP 503 injected fault");
  }

  @Test
  default void anUnreachableClickHouseStopsTheJobAtStart() {
    sourceTable("unreachable", fields("id INTEGER"), row("1"));
    Map<String, String> env = environment();
    String nowhere = "http://127.0.0.1:" + dev.pubsubclickhouse.testing.LocalClickHouse.freePort();
    env.put("CLICKHOUSE_URL", nowhere);

    JobRun run = copy(env, "unreachable", "t");

    run.assertFailed()
        .contains(
            "backfill failed before reading: "
                + dev.pubsubclickhouse.testing.ClickHouseMistakes.CLOSED_PORT.line(nowhere));
    assertThat(bigQuery().requests()).isEmpty();
  }

  @Test
  default void aClickHouseOutageMidRunFailsTheJobWithANonZeroExitAndAClearMessage()
      throws Exception {
    assumeTrue(rest());
    idTables("outage", 100, "");
    String host = java.net.URI.create(db().server().url()).getHost();
    int port = java.net.URI.create(db().server().url()).getPort();
    try (TcpProxy proxy = new TcpProxy(host, port)) {
      bigQuery().onRequest("/outage_snapshot1/data", 3, proxy::close);
      Map<String, String> env = environment();
      env.put("CLICKHOUSE_URL", proxy.url());
      env.put("MAX_RETRIES", "1");

      JobRun run = copy(env, "outage", "outage", "--pageRows=10", "--checkpointTable=none");

      run.assertFailed()
          .contains(
              "\"message\":\"backfill failed: ClickHouse at "
                  + proxy.url()
                  + " did not take a page: INSERT failed (transient");
      assertThat(db().count("outage")).isLessThan(100);
    }
  }
}
