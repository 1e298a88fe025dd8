package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.backfill.FakeBigQuery.PROJECT;
import static dev.pubsubclickhouse.backfill.FakeBigQuery.fields;
import static dev.pubsubclickhouse.backfill.FakeBigQuery.record;
import static dev.pubsubclickhouse.backfill.FakeBigQuery.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The job end to end: the real BigQuery client and page reader against {@link FakeBigQuery}
 * (BigQuery's REST API on MockWebServer), writing into the real local ClickHouse.
 */
@ClickHouseTest
class BackfillIT {
  private final TestDatabase db;
  private FakeBigQuery bigQuery;

  BackfillIT(TestDatabase db) {
    this.db = db;
  }

  @BeforeEach
  void startBigQuery() throws Exception {
    bigQuery = new FakeBigQuery();
  }

  @AfterEach
  void stopBigQuery() throws Exception {
    bigQuery.close();
  }

  private Map<String, String> environment() {
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", db.server().url());
    env.put("CLICKHOUSE_USER", db.server().user());
    env.put("CLICKHOUSE_PASSWORD", db.server().password());
    env.put("CLICKHOUSE_DATABASE", db.name());
    env.put("BIGQUERY_ENDPOINT", bigQuery.endpoint());
    env.put("GOOGLE_CLOUD_PROJECT", PROJECT);
    env.put("OUTPUT_DEADLETTER_TABLE", "none");
    return env;
  }

  /** A BigQuery table ds.{name} of ids 0..rows-1, and a ClickHouse table {name}(id UInt32). */
  private void idTables(String name, int rows, String clickHouseSettings) {
    FakeBigQuery.Table table = bigQuery.table("ds", name, fields("id INTEGER"));
    for (int i = 0; i < rows; i++) {
      table.rows.add(row(Integer.toString(i)));
    }
    db.execute(
        "CREATE TABLE "
            + name
            + " (id UInt32, loaded_at DateTime64(6) DEFAULT now64(6)) ENGINE = MergeTree ORDER BY id"
            + clickHouseSettings);
  }

  @Test
  void aTableIsReadPageByPageWithPageTokensAndEveryRowIsWritten() {
    FakeBigQuery.Table events =
        bigQuery.table(
            "ds",
            "events",
            fields("event_time DATETIME", "service STRING", "level STRING", "message STRING"));
    for (int i = 0; i < 25; i++) {
      events.rows.add(row("2025-12-30T12:00:" + String.format("%02d", i), "api", "INFO", "m" + i));
    }
    db.execute(
        "CREATE TABLE events (event_time DateTime, service String, level String, message String)"
            + " ENGINE = MergeTree ORDER BY event_time");

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ":ds.events",
            "--clickHouseTable=events",
            "--pageRows=10");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(db.count("events")).isEqualTo(25);
    assertThat(db.query("SELECT * FROM events ORDER BY event_time LIMIT 1"))
        .isEqualTo("2025-12-30 12:00:00\tapi\tINFO\tm0");
    assertThat(db.query("SELECT message FROM events ORDER BY event_time DESC LIMIT 1"))
        .isEqualTo("m24");
    assertThat(bigQuery.requestsTo("/data?"))
        .containsExactly(
            "GET /bigquery/v2/projects/test-project/datasets/ds/tables/events/data?maxResults=10&startIndex=0&prettyPrint=false&formatOptions.useInt64Timestamp=true",
            "GET /bigquery/v2/projects/test-project/datasets/ds/tables/events/data?maxResults=10&pageToken=at-10&prettyPrint=false&formatOptions.useInt64Timestamp=true",
            "GET /bigquery/v2/projects/test-project/datasets/ds/tables/events/data?maxResults=5&pageToken=at-20&prettyPrint=false&formatOptions.useInt64Timestamp=true");
    assertThat(run.out()).contains("\"message\":\"backfill finished\"").contains("\"written\":25");
  }

  @Test
  void theClientLibraryPageReaderReadsTheSameRows() {
    idTables("client_reader", 35, "");

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ".ds.client_reader",
            "--clickHouseTable=client_reader",
            "--pageRows=10",
            "--pageReader=client");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(db.query("SELECT count(), uniqExact(id), min(id), max(id) FROM client_reader"))
        .isEqualTo("35\t35\t0\t34");
    assertThat(bigQuery.requestsTo("/data?")).hasSize(4);
  }

  @Test
  void everyBigQueryTypeArrivesInItsClickHouseColumn() {
    ArrayNode fields =
        fields(
            "i8 INTEGER",
            "u16 INTEGER",
            "i64 INTEGER",
            "f FLOAT",
            "n NUMERIC",
            "bn BIGNUMERIC",
            "b BOOLEAN",
            "s STRING",
            "e STRING",
            "fs STRING",
            "d DATE",
            "dt DATETIME",
            "dt64 DATETIME",
            "ts TIMESTAMP",
            "arr INTEGER REPEATED");
    ArrayNode structFields = fields("x INTEGER", "y STRING");
    fields.add(FakeBigQuery.field("st", "RECORD", "NULLABLE", structFields));
    fields.addAll(fields("by BYTES", "js JSON", "geo GEOGRAPHY", "tm TIME", "nul STRING"));
    FakeBigQuery.Table all = bigQuery.table("ds", "all_types", fields);
    all.rows.add(
        row(
            "-128",
            "65535",
            "9223372036854775807",
            "1.5",
            "12345678901234567890.123456789",
            "0.12345678901234567890123456789012345678",
            "true",
            "héllo",
            "b",
            "abcd",
            "2026-01-15",
            "2026-01-15T12:34:56",
            "2026-01-15T12:34:56.123456",
            "1768480496123456",
            List.of("1", "2", "3"),
            record("7", "seven"),
            "cmF3Ynl0ZXM=",
            "{\"k\":[1,2]}",
            "POINT(1 2)",
            "12:34:56.500000",
            null));
    db.execute(
        "CREATE TABLE all_types (i8 Int8, u16 UInt16, i64 Int64, f Float64, n Decimal(38, 9),"
            + " bn Decimal(76, 38), b Bool, s String, e Enum8('a' = 1, 'b' = 2), fs FixedString(4),"
            + " d Date, dt DateTime, dt64 DateTime64(6), ts DateTime64(6, 'UTC'), arr Array(Int32),"
            + " st Tuple(x Int64, y String), by String, js String, geo String, tm String,"
            + " nul Nullable(String)) ENGINE = MergeTree ORDER BY i8");

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ":ds.all_types",
            "--clickHouseTable=all_types");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(db.query("SELECT * FROM all_types"))
        .isEqualTo(
            "-128\t65535\t9223372036854775807\t1.5\t12345678901234567890.123456789"
                + "\t0.12345678901234567890123456789012345678\ttrue\théllo\tb\tabcd\t2026-01-15"
                + "\t2026-01-15 12:34:56\t2026-01-15 12:34:56.123456\t2026-01-15 12:34:56.123456"
                + "\t[1,2,3]\t(7,'seven')\trawbytes\t{\"k\":[1,2]}\tPOINT(1 2)\t12:34:56.500000\t\\N");
  }

  @Test
  void aJsonFieldFillsAJsonColumn() {
    bigQuery
        .table("ds", "json_source", fields("id INTEGER", "payload JSON"))
        .rows
        .add(row("1", "{\"user\":{\"id\":42},\"tags\":[\"a\"]}"));
    db.execute("CREATE TABLE json_target (id UInt8, payload JSON) ENGINE = MergeTree ORDER BY id");

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ":ds.json_source",
            "--clickHouseTable=json_target");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(db.query("SELECT payload.user.id, payload.tags FROM json_target"))
        .isEqualTo("42\t['a']");
  }

  @Test
  void rowsThatDoNotFitGoToBothDeadLetterTablesWithTheReasonAndTheJobGoesOn() {
    bigQuery.table("ds", "small", fields("id INTEGER", "level INTEGER"));
    FakeBigQuery.Table small = bigQuery.table("ds", "small");
    small.rows.add(row("1", "5"));
    small.rows.add(row("2", "300"));
    small.rows.add(row("3", "7"));
    db.execute("CREATE TABLE small (id UInt8, level Int8) ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = environment();
    env.remove("OUTPUT_DEADLETTER_TABLE");
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "errors");
    env.put("CREATE_DEAD_LETTER_TABLE", "true");

    JobRun run =
        JobRun.of(env, "--inputTableSpec=" + PROJECT + ":ds.small", "--clickHouseTable=small");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(db.query("SELECT id, level FROM small ORDER BY id")).isEqualTo("1\t5\n3\t7");
    assertThat(db.query("SELECT raw_message, error_message FROM errors"))
        .isEqualTo(
            "{\"id\":2,\"level\":300}\tsource row 1: column \\'level\\' (Int8) rejects 300: out of"
                + " range [-128, 127]");
    assertThat(bigQuery.requestsTo("/tables"))
        .contains("POST /bigquery/v2/projects/test-project/datasets/ds/tables?prettyPrint=false");
    assertThat(bigQuery.table("ds", "small_error_records")).isNotNull();
    assertThat(bigQuery.insertedRows()).hasSize(1);
    assertThat(bigQuery.insertedRows().get(0).path("json").path("payloadString").asText())
        .isEqualTo("{\"id\":2,\"level\":300}");
    assertThat(bigQuery.insertedRows().get(0).path("json").path("errorMessage").asText())
        .isEqualTo("source row 1: column 'level' (Int8) rejects 300: out of range [-128, 127]");
    assertThat(run.out()).contains("\"rejected\":1").contains("\"deadLettered\":1");
  }

  @Test
  void rowsClickHouseItselfRefusesAreFoundBySplittingThePageAndDeadLettered() {
    FakeBigQuery.Table checked = bigQuery.table("ds", "checked", fields("id INTEGER"));
    for (int i = 1; i <= 10; i++) {
      checked.rows.add(row(Integer.toString(i)));
    }
    db.execute(
        "CREATE TABLE checked (id UInt8, CONSTRAINT not_seven CHECK id != 7)"
            + " ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = environment();
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "checked_errors");
    env.put("CREATE_DEAD_LETTER_TABLE", "true");

    JobRun run =
        JobRun.of(env, "--inputTableSpec=" + PROJECT + ":ds.checked", "--clickHouseTable=checked");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(db.query("SELECT groupArray(id) FROM (SELECT id FROM checked ORDER BY id)"))
        .isEqualTo("[1,2,3,4,5,6,8,9,10]");
    assertThat(db.query("SELECT raw_message FROM checked_errors")).isEqualTo("{\"id\":7}");
    assertThat(db.query("SELECT error_message FROM checked_errors"))
        .startsWith(
            "source row 6: ClickHouse refused it: Code: 469. DB::Exception: Constraint `not_seven`");
  }

  @Test
  void rejectedRowsWithNowhereToGoMakeTheExitCodeNonZero() {
    bigQuery.table("ds", "nowhere", fields("id INTEGER")).rows.add(row("-1"));
    db.execute("CREATE TABLE nowhere (id UInt8) ENGINE = MergeTree ORDER BY id");

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ":ds.nowhere",
            "--clickHouseTable=nowhere");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains("1 rejected rows have no dead-letter table to keep them")
        .contains("column 'id' (UInt8) rejects -1: out of range [0, 255]");
  }

  @Test
  void tasksShareTheRowsSoThatTogetherTheyWriteEveryRowExactlyOnce() {
    idTables("sharded", 1000, "");
    for (int task = 0; task < 3; task++) {
      Map<String, String> env = environment();
      env.put("CLOUD_RUN_TASK_COUNT", "3");
      env.put("CLOUD_RUN_TASK_INDEX", Integer.toString(task));
      JobRun run =
          JobRun.of(
              env,
              "--inputTableSpec=" + PROJECT + ":ds.sharded",
              "--clickHouseTable=sharded",
              "--pageRows=150");
      assertThat(run.exitCode()).as(run.output()).isZero();
    }
    assertThat(db.query("SELECT count(), uniqExact(id), min(id), max(id) FROM sharded"))
        .isEqualTo("1000\t1000\t0\t999");
    assertThat(bigQuery.requestsTo("/data?").get(0)).contains("maxResults=150&startIndex=0&");
    assertThat(bigQuery.requestsTo("/data?"))
        .anyMatch(r -> r.contains("startIndex=333&"))
        .anyMatch(r -> r.contains("startIndex=666&"));
  }

  @Test
  void aPageInsertedAgainIsDroppedByADeduplicatingTable() {
    idTables("dedup", 100, " SETTINGS non_replicated_deduplication_window = 100");
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.dedup",
      "--clickHouseTable=dedup",
      "--pageRows=30",
      "--checkpointTable=none"
    };

    JobRun first = JobRun.of(environment(), args);
    JobRun again = JobRun.of(environment(), args);

    assertThat(first.exitCode()).as(first.output()).isZero();
    assertThat(again.exitCode()).as(again.output()).isZero();
    // loaded_at differs between the runs, so only the deduplication token makes the pages equal.
    assertThat(db.query("SELECT count(), uniqExact(id) FROM dedup")).isEqualTo("100\t100");
    db.flushLogs();
    assertThat(
            db.query(
                "SELECT count(), uniqExact(Settings['insert_deduplication_token']),"
                    + " countIf(Settings['insert_deduplication_token'] = '')"
                    + " FROM system.query_log WHERE type = 'QueryFinish' AND query_kind = 'Insert'"
                    + " AND has(tables, '"
                    + db.name()
                    + ".dedup')"))
        .as("both runs sent the same four pages with the same four tokens")
        .isEqualTo("8\t4\t0");
  }

  @Test
  void aRerunAfterAFailureResumesAfterThePagesAlreadyWritten() {
    idTables("resumed", 100, "");
    bigQuery.failAfter("/resumed/data", 2, 400, 1);
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.resumed", "--clickHouseTable=resumed", "--pageRows=20"
    };

    JobRun failed = JobRun.of(environment(), args);
    assertThat(failed.exitCode()).isEqualTo(1);
    assertThat(failed.out()).contains("backfill failed: ").contains("injected fault");
    assertThat(db.count("resumed")).isEqualTo(40);

    int requestsBefore = bigQuery.requestsTo("/resumed/data").size();
    JobRun resumed = JobRun.of(environment(), args);

    assertThat(resumed.exitCode()).as(resumed.output()).isZero();
    assertThat(db.query("SELECT count(), uniqExact(id) FROM resumed")).isEqualTo("100\t100");
    List<String> reads = bigQuery.requestsTo("/resumed/data");
    assertThat(reads.get(requestsBefore)).contains("startIndex=40&");
    assertThat(reads.subList(requestsBefore, reads.size())).hasSize(3);
    assertThat(resumed.out()).contains("\"resumeAt\":40").contains("\"skippedAsDone\":40");
  }

  @Test
  void aBigQueryServerErrorMidReadIsRetried() {
    idTables("flaky", 60, "");
    bigQuery.failAfter("/flaky/data", 1, 503, 2);

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ":ds.flaky",
            "--clickHouseTable=flaky",
            "--pageRows=20");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(db.query("SELECT count(), uniqExact(id) FROM flaky")).isEqualTo("60\t60");
    assertThat(bigQuery.requestsTo("/flaky/data")).hasSize(5);
  }

  @Test
  void aQueryRunsOnceAsAJobAndItsResultTableIsShardedAcrossTasks() {
    String sql = "SELECT id FROM `test-project.ds.big` WHERE id < 10";
    bigQuery.queryResult(sql, "_anon", "result1");
    FakeBigQuery.Table result = bigQuery.table("_anon", "result1", fields("id INTEGER"));
    for (int i = 0; i < 10; i++) {
      result.rows.add(row(Integer.toString(i)));
    }
    db.execute("CREATE TABLE from_query (id UInt32) ENGINE = MergeTree ORDER BY id");
    for (int task = 0; task < 2; task++) {
      Map<String, String> env = environment();
      env.put("CLOUD_RUN_EXECUTION", "backfill-abc12");
      env.put("CLOUD_RUN_TASK_COUNT", "2");
      env.put("CLOUD_RUN_TASK_INDEX", Integer.toString(task));
      env.put("QUERY", sql);
      JobRun run = JobRun.of(env, "--clickHouseTable=from_query", "--queryLocation=US");
      assertThat(run.exitCode()).as(run.output()).isZero();
    }

    assertThat(db.query("SELECT count(), uniqExact(id) FROM from_query")).isEqualTo("10\t10");
    assertThat(bigQuery.requestsTo("/jobs"))
        .filteredOn(r -> r.startsWith("POST"))
        .hasSize(2); // the second task's insert is refused (409) and it reads the first's job
    assertThat(bigQuery.requestsTo("/result1/data")).hasSize(2);
  }

  @Test
  void aDryRunPrintsTheColumnPlanAndWritesNothing() {
    bigQuery
        .table("ds", "planned", fields("id INTEGER", "name STRING", "unused FLOAT"))
        .rows
        .add(row("1", "a", "1.0"));
    db.execute(
        "CREATE TABLE planned (id UInt8, name String, note String DEFAULT 'none',"
            + " score Nullable(Float32)) ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = environment();
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "never_created");
    env.put("CREATE_DEAD_LETTER_TABLE", "true");

    JobRun run =
        JobRun.of(
            env,
            "--inputTableSpec=" + PROJECT + ":ds.planned",
            "--clickHouseTable=planned",
            "--dryRun");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.out())
        .contains(
            "column  clickhouse type    bigquery field  how\n"
                + "id      UInt8              id INT64        checked per value; misfits are dead-lettered\n"
                + "name    String             name STRING     exact\n"
                + "note    String             (none)          DEFAULT 'none'\n"
                + "score   Nullable(Float32)  (none)          NULL\n"
                + "ignored BigQuery fields (no such column): unused\n")
        .contains("dry run: parameters, schemas and type mapping are valid");
    assertThat(db.count("planned")).isZero();
    assertThat(db.query("EXISTS TABLE never_created")).isEqualTo("0");
    assertThat(db.query("EXISTS TABLE dry_run_checkpoints")).isEqualTo("0");
    assertThat(bigQuery.requestsTo("/data?")).isEmpty();
  }

  @Test
  void aDryRunOfAQueryTakesTheSchemaFromBigQuerysDryRunAndRunsNothing() {
    String sql = "SELECT id, name FROM `test-project.ds.people`";
    bigQuery.queryResult(sql, "_anon", "people_result");
    bigQuery.table("_anon", "people_result", fields("id INTEGER", "name STRING"));
    db.execute("CREATE TABLE people (id UInt64, name String) ENGINE = MergeTree ORDER BY id");

    JobRun run = JobRun.of(environment(), "--query=" + sql, "--clickHouseTable=people", "--dryRun");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.out())
        .contains(
            "id      UInt64           id INT64        checked per value; misfits are dead-lettered\n");
    assertThat(bigQuery.requestsTo("/jobs")).hasSize(1);
    assertThat(bigQuery.requestsTo("/queries")).isEmpty();
    assertThat(bigQuery.requestsTo("/data?")).isEmpty();
  }

  @Test
  void aMissingClickHouseTableIsNamed() {
    bigQuery.table("ds", "orphan", fields("id INTEGER")).rows.add(row("1"));

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ":ds.orphan",
            "--clickHouseTable=absent");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "backfill failed before reading: table "
                + db.name()
                + ".absent does not exist or is not visible to this user");
  }

  @Test
  void aColumnBigQueryCannotFillStopsTheJobBeforeAnyRead() {
    bigQuery.table("ds", "lacking", fields("id INTEGER")).rows.add(row("1"));
    db.execute(
        "CREATE TABLE lacking (id UInt8, region String, ts DateTime) ENGINE = MergeTree ORDER BY id");

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ":ds.lacking",
            "--clickHouseTable=lacking");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "backfill failed before reading: BigQuery and "
                + db.name()
                + ".lacking do not fit: column 'region' (String) has no BigQuery field of that name,"
                + " no DEFAULT and is not Nullable; column 'ts' (DateTime) has no BigQuery field of"
                + " that name, no DEFAULT and is not Nullable");
    assertThat(bigQuery.requestsTo("/data?")).isEmpty();
  }

  @Test
  void anIncompatibleTypeStopsTheJobBeforeAnyRead() {
    bigQuery
        .table("ds", "wrong_type", fields("id INTEGER", "flag BOOLEAN"))
        .rows
        .add(row("1", "true"));
    db.execute("CREATE TABLE wrong_type (id UInt8, flag Date) ENGINE = MergeTree ORDER BY id");

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ":ds.wrong_type",
            "--clickHouseTable=wrong_type");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("column 'flag' (Date) cannot take BigQuery BOOL");
  }

  @Test
  void aClickHouseOutageMidRunFailsTheJobWithANonZeroExitAndAClearMessage() throws Exception {
    idTables("outage", 100, "");
    String host = java.net.URI.create(db.server().url()).getHost();
    int port = java.net.URI.create(db.server().url()).getPort();
    try (TcpProxy proxy = new TcpProxy(host, port)) {
      bigQuery.onRequest("/outage/data", 3, proxy::close);
      Map<String, String> env = environment();
      env.put("CLICKHOUSE_URL", proxy.url());
      env.put("MAX_RETRIES", "1");

      JobRun run =
          JobRun.of(
              env,
              "--inputTableSpec=" + PROJECT + ":ds.outage",
              "--clickHouseTable=outage",
              "--pageRows=10",
              "--checkpointTable=none");

      assertThat(run.exitCode()).as(run.output()).isEqualTo(1);
      assertThat(run.out())
          .contains(
              "\"message\":\"backfill failed: ClickHouse at "
                  + proxy.url()
                  + " did not take a page: INSERT failed (transient");
      assertThat(db.count("outage")).isLessThan(100);
    }
  }

  @Test
  void anUnreachableClickHouseStopsTheJobAtStart() {
    bigQuery.table("ds", "unreachable", fields("id INTEGER")).rows.add(row("1"));
    Map<String, String> env = environment();
    env.put(
        "CLICKHOUSE_URL",
        "http://127.0.0.1:" + dev.pubsubclickhouse.testing.LocalClickHouse.freePort());

    JobRun run =
        JobRun.of(env, "--inputTableSpec=" + PROJECT + ":ds.unreachable", "--clickHouseTable=t");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains("backfill failed before reading: cannot use ClickHouse at http://127.0.0.1:");
    assertThat(bigQuery.requests()).isEmpty();
  }

  @Test
  void aWrongParameterStopsTheJobWithOneLineBeforeAnyRequest() {
    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ":ds.t",
            "--clickHouseTable=t",
            "--maxRetries=lots");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo("backfill: --maxRetries (MAX_RETRIES): expected a whole number, got 'lots'\n");
    assertThat(bigQuery.requests()).isEmpty();
  }

  @Test
  void thePasswordAppearsNowhereInTheOutput() {
    bigQuery.table("ds", "secretive", fields("id INTEGER")).rows.add(row("1"));
    db.execute("CREATE TABLE secretive (id UInt8) ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = environment();
    env.put("CLICKHOUSE_PASSWORD", "s3cr3t-value");

    JobRun run =
        JobRun.of(
            env,
            "--inputTableSpec=" + PROJECT + ":ds.secretive",
            "--clickHouseTable=secretive",
            "--clickHousePassword=s3cr3t-flag-value",
            "--dryRun");

    assertThat(run.output()).doesNotContain("s3cr3t");
  }
}
