package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.fields;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.record;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.TestDatabase;
import dev.pubsubclickhouse.testing.bigquery.BigQueryRows;
import dev.pubsubclickhouse.testing.bigquery.BigQueryTable;
import dev.pubsubclickhouse.testing.bigquery.LocalBigQuery;
import dev.pubsubclickhouse.testing.bigquery.StorageReadApi;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The job end to end, the same suite for each way of reading: the real BigQuery clients against
 * {@link LocalBigQuery} (BigQuery's REST API and the Storage Read API's gRPC service, serving
 * Avro), writing into the real local ClickHouse.
 */
abstract class BackfillSuite {
  static final String PROJECT = "test-project";

  protected final TestDatabase db;
  protected LocalBigQuery bigQuery;
  protected StorageReadApi storage;

  BackfillSuite(TestDatabase db) {
    this.db = db;
  }

  /** The reader's parameters. */
  abstract Map<String, String> readerEnvironment();

  /** True for the REST readers, whose requests some tests check one by one. */
  abstract boolean rest();

  /** The next read fails for good once {@code rows} rows of the source were read. */
  abstract void failReadsAfter(int rows);

  /** Reads fail for a transient reason twice, part way. */
  abstract void breakReadsTwice();

  /** Runs {@code action} while the first task reads. */
  abstract void duringReads(Runnable action);

  /** The read requests that followed such failures, in order. */
  abstract List<String> readRequests();

  @BeforeEach
  void startBigQuery() throws Exception {
    bigQuery = LocalBigQuery.forTests(PROJECT);
    storage = bigQuery.storage();
  }

  @AfterEach
  void stopBigQuery() {
    bigQuery.close();
  }

  protected Map<String, String> environment() {
    Map<String, String> env = new HashMap<>();
    env.putAll(readerEnvironment());
    env.put("BIGQUERY_MAX_ATTEMPTS", "4");
    env.putAll(db.server().environment(db.name()));
    env.put("BIGQUERY_ENDPOINT", bigQuery.endpoint());
    env.put("GOOGLE_CLOUD_PROJECT", PROJECT);
    env.put("OUTPUT_DEADLETTER_TABLE", "none");
    return env;
  }

  /** {@code env} with ClickHouse dead-letter table {@code table}, which the job creates. */
  protected static Map<String, String> withDeadLetterTable(Map<String, String> env, String table) {
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", table);
    env.put("CREATE_DEAD_LETTER_TABLE", "true");
    return env;
  }

  /**
   * {@code env} with what Cloud Run sets for task {@code task} (from 0) of {@code tasks} of
   * execution {@code execution}.
   */
  protected static Map<String, String> forTask(
      Map<String, String> env, String execution, int tasks, int task) {
    env.put("CLOUD_RUN_EXECUTION", execution);
    env.put("CLOUD_RUN_TASK_COUNT", Integer.toString(tasks));
    env.put("CLOUD_RUN_TASK_INDEX", Integer.toString(task));
    return env;
  }

  /**
   * Runs the job with {@code env} from BigQuery's {@code ds.source} into ClickHouse's {@code
   * target}, with {@code flags} on top.
   */
  protected static JobRun copy(
      Map<String, String> env, String source, String target, String... flags) {
    List<String> args = new ArrayList<>();
    args.add("--inputTableSpec=" + PROJECT + ":ds." + source);
    args.add("--clickHouseTable=" + target);
    args.addAll(List.of(flags));
    return JobRun.of(env, args.toArray(String[]::new));
  }

  /** A BigQuery table {dataset}.{name} of one column id, holding ids 0..rows-1. */
  protected BigQueryTable idTable(String dataset, String name, int rows) {
    BigQueryTable table = bigQuery.table(dataset, name, fields("id INTEGER"));
    for (int i = 0; i < rows; i++) {
      table.rows.add(row(Integer.toString(i)));
    }
    return table;
  }

  /**
   * BigQuery answers {@code sql} with its result table _anon.{resultTable} of ids 0..rows-1, and a
   * ClickHouse table {target}(id UInt32).
   */
  protected void idQueryTables(String sql, String resultTable, int rows, String target) {
    bigQuery.queryResult(sql, "_anon", resultTable);
    idTable("_anon", resultTable, rows);
    db.execute("CREATE TABLE " + target + " (id UInt32) ENGINE = MergeTree ORDER BY id");
  }

  /** The ids of ClickHouse table {@code table} in order, as groupArray prints them. */
  protected String storedIds(String table) {
    return db.query("SELECT groupArray(id) FROM (SELECT id FROM " + table + " ORDER BY id)");
  }

  /** A BigQuery table ds.{name} of ids 0..rows-1, and a ClickHouse table {name}(id UInt32). */
  protected void idTables(String name, int rows, String clickHouseSettings) {
    idTable("ds", name, rows);
    db.execute(
        "CREATE TABLE "
            + name
            + " (id UInt32, loaded_at DateTime64(6) DEFAULT now64(6)) ENGINE = MergeTree ORDER BY id"
            + clickHouseSettings);
  }

  @Test
  void aTableIsReadPageByPageAndEveryRowIsWritten() {
    BigQueryTable events =
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

    JobRun run = copy(environment(), "events", "events", "--pageRows=10");

    run.assertSucceeded();
    assertThat(
            db.query("SELECT groupArray(message) FROM (SELECT * FROM events ORDER BY event_time)"))
        .isEqualTo(
            "['m0','m1','m2','m3','m4','m5','m6','m7','m8','m9','m10','m11','m12','m13','m14',"
                + "'m15','m16','m17','m18','m19','m20','m21','m22','m23','m24']");
    assertThat(db.query("SELECT * FROM events ORDER BY event_time LIMIT 1"))
        .isEqualTo("2025-12-30 12:00:00\tapi\tINFO\tm0");
    if (rest()) {
      assertThat(bigQuery.requestsTo("/data?"))
          .containsExactly(
              "GET /bigquery/v2/projects/test-project/datasets/_anon/tables/events_snapshot1/data?maxResults=10&startIndex=0&prettyPrint=false&formatOptions.useInt64Timestamp=true",
              "GET /bigquery/v2/projects/test-project/datasets/_anon/tables/events_snapshot1/data?maxResults=10&pageToken=at-10&prettyPrint=false&formatOptions.useInt64Timestamp=true",
              "GET /bigquery/v2/projects/test-project/datasets/_anon/tables/events_snapshot1/data?maxResults=5&pageToken=at-20&prettyPrint=false&formatOptions.useInt64Timestamp=true");
    } else {
      assertThat(storage.createdSessions()).hasSize(1);
      assertThat(storage.createdSessions().get(0).getTableModifiers().hasSnapshotTime()).isTrue();
    }
    assertThat(run.out()).contains("\"message\":\"backfill finished\"").contains("\"written\":25");
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
    fields.add(BigQueryRows.field("st", "RECORD", "NULLABLE", structFields));
    fields.addAll(fields("by BYTES", "js JSON", "geo GEOGRAPHY", "tm TIME", "nul STRING"));
    BigQueryTable all = bigQuery.table("ds", "all_types", fields);
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

    JobRun run = copy(environment(), "all_types", "all_types");

    run.assertSucceeded();
    assertThat(db.query("SELECT * FROM all_types"))
        .isEqualTo(
            "-128\t65535\t9223372036854775807\t1.5\t12345678901234567890.123456789"
                + "\t0.12345678901234567890123456789012345678\ttrue\théllo\tb\tabcd\t2026-01-15"
                + "\t2026-01-15 12:34:56\t2026-01-15 12:34:56.123456\t2026-01-15 12:34:56.123456"
                + "\t[1,2,3]\t(7,'seven')\trawbytes\t{\"k\":[1,2]}\tPOINT(1 2)\t12:34:56.500000\t\\N");
  }

  /** The column plan calls FLOAT64 into Float64 or Float32 exact: infinities included. */
  @Test
  void anInfiniteFloat64ArrivesAsInfinity() {
    BigQueryTable floats =
        bigQuery.table("ds", "floats", fields("id INTEGER", "f64 FLOAT", "f32 FLOAT"));
    floats.rows.add(row("1", "Infinity", "Infinity"));
    floats.rows.add(row("2", "-Infinity", "-Infinity"));
    floats.rows.add(row("3", "1.5", "1.5"));
    db.execute(
        "CREATE TABLE floats (id UInt32, f64 Float64, f32 Float32) ENGINE = MergeTree ORDER BY id");

    JobRun run = copy(environment(), "floats", "floats");

    run.assertSucceeded();
    assertThat(
            db.query("SELECT groupArray((id, f64, f32)) FROM (SELECT * FROM floats ORDER BY id)"))
        .isEqualTo("[(1,inf,inf),(2,-inf,-inf),(3,1.5,1.5)]");
  }

  @Test
  void aJsonFieldFillsAJsonColumn() {
    bigQuery
        .table("ds", "json_source", fields("id INTEGER", "payload JSON"))
        .rows
        .add(row("1", "{\"user\":{\"id\":42},\"tags\":[\"a\"]}"));
    db.execute("CREATE TABLE json_target (id UInt8, payload JSON) ENGINE = MergeTree ORDER BY id");

    JobRun run = copy(environment(), "json_source", "json_target");

    run.assertSucceeded();
    assertThat(db.query("SELECT payload.user.id, payload.tags FROM json_target"))
        .isEqualTo("42\t['a']");
  }

  @Test
  void rowsThatDoNotFitGoToBothDeadLetterTablesWithTheReasonAndTheJobGoesOn() {
    bigQuery.table("ds", "small", fields("id INTEGER", "level INTEGER"));
    BigQueryTable small = bigQuery.table("ds", "small");
    small.rows.add(row("1", "5"));
    small.rows.add(row("2", "300"));
    small.rows.add(row("3", "7"));
    db.execute("CREATE TABLE small (id UInt8, level Int8) ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = environment();
    env.remove("OUTPUT_DEADLETTER_TABLE");
    withDeadLetterTable(env, "errors");

    JobRun run = copy(env, "small", "small");

    run.assertSucceeded();
    assertThat(db.query("SELECT id, level FROM small ORDER BY id")).isEqualTo("1\t5\n3\t7");
    assertThat(db.query("SELECT raw_message, error_message FROM errors"))
        .isEqualTo(
            "{\"id\":2,\"level\":300}\tsource row 1: column \\'level\\' (Int8) rejects 300: out of"
                + " range [-128, 127]");
    assertThat(bigQuery.requestsTo("/tables"))
        .contains(
            "POST /bigquery/v2/projects/test-project/datasets/backfill_dead_letters/tables?prettyPrint=false");
    assertThat(bigQuery.table("backfill_dead_letters", "small_error_records")).isNotNull();
    assertThat(bigQuery.insertedRows()).hasSize(1);
    assertThat(bigQuery.insertedRows().get(0).path("json").path("payloadString").asText())
        .isEqualTo("{\"id\":2,\"level\":300}");
    assertThat(bigQuery.insertedRows().get(0).path("json").path("errorMessage").asText())
        .isEqualTo("source row 1: column 'level' (Int8) rejects 300: out of range [-128, 127]");
    assertThat(run.out()).contains("\"rejected\":1").contains("\"deadLettered\":1");
  }

  @Test
  void rowsClickHouseItselfRefusesAreFoundBySplittingThePageAndDeadLettered() {
    BigQueryTable checked = bigQuery.table("ds", "checked", fields("id INTEGER"));
    for (int i = 1; i <= 10; i++) {
      checked.rows.add(row(Integer.toString(i)));
    }
    db.execute(
        "CREATE TABLE checked (id UInt8, CONSTRAINT not_seven CHECK id != 7)"
            + " ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = withDeadLetterTable(environment(), "checked_errors");

    JobRun run = copy(env, "checked", "checked");

    run.assertSucceeded();
    assertThat(storedIds("checked")).isEqualTo("[1,2,3,4,5,6,8,9,10]");
    assertThat(db.query("SELECT raw_message FROM checked_errors")).isEqualTo("{\"id\":7}");
    assertThat(db.query("SELECT error_message FROM checked_errors"))
        .startsWith(
            "source row 6: ClickHouse refused it: Code: 469. DB::Exception: Constraint `not_seven`");
  }

  @Test
  void rejectedRowsWithNowhereToGoMakeTheExitCodeNonZero() {
    bigQuery.table("ds", "nowhere", fields("id INTEGER")).rows.add(row("-1"));
    db.execute("CREATE TABLE nowhere (id UInt8) ENGINE = MergeTree ORDER BY id");

    JobRun run = copy(environment(), "nowhere", "nowhere");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains("1 rejected rows have no dead-letter table to keep them")
        .contains("column 'id' (UInt8) rejects -1: out of range [0, 255]");
  }

  @Test
  void tasksShareTheRowsSoThatTogetherTheyWriteEveryRowExactlyOnce() {
    idTables("sharded", 1000, "");
    for (int task = 0; task < 3; task++) {
      Map<String, String> env = forTask(environment(), "sharded-1", 3, task);
      JobRun run = copy(env, "sharded", "sharded", "--pageRows=150");
      run.assertSucceeded();
    }
    assertThat(db.query("SELECT count(), uniqExact(id), min(id), max(id) FROM sharded"))
        .isEqualTo("1000\t1000\t0\t999");
    if (rest()) {
      assertThat(bigQuery.requestsTo("/data?").get(0)).contains("maxResults=150&startIndex=0&");
      assertThat(bigQuery.requestsTo("/data?"))
          .as("7 pages of 150 rows: tasks of 2, 2 and 3 pages")
          .anyMatch(r -> r.contains("startIndex=300&"))
          .anyMatch(r -> r.contains("startIndex=600&"));
      assertThat(bigQuery.requestsTo("POST /bigquery/v2/projects/test-project/jobs")).hasSize(3);
      assertThat(bigQuery.snapshotTables()).hasSize(1);
    } else {
      assertThat(storage.createdSessions()).hasSize(1);
      assertThat(storage.createdSessions().get(0).getStreamsCount()).isEqualTo(6);
    }
  }

  /**
   * Two executions of an unchanged table read the same snapshot through REST, so their pages have
   * the same tokens. (The Storage Read API splits each session's streams anew.)
   */
  @Test
  void aPageInsertedAgainIsDroppedByADeduplicatingTable() {
    assumeTrue(rest());
    idTables("dedup", 100, " SETTINGS non_replicated_deduplication_window = 100");
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.dedup",
      "--clickHouseTable=dedup",
      "--pageRows=30",
      "--checkpointTable=none"
    };

    JobRun first = JobRun.of(environment(), args);
    JobRun again = JobRun.of(environment(), args);

    first.assertSucceeded();
    again.assertSucceeded();
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
  void aRetriedTaskResumesAfterThePagesAlreadyWritten() {
    idTables("resumed", 100, "");
    failReadsAfter(40);
    Map<String, String> env = environment();
    env.put("CLOUD_RUN_EXECUTION", "resumed-1");
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.resumed", "--clickHouseTable=resumed", "--pageRows=20"
    };

    JobRun failed = JobRun.of(env, args);
    assertThat(failed.exitCode()).as(failed.output()).isEqualTo(1);
    assertThat(failed.out()).contains("backfill failed: ").contains("injected");
    long before = db.count("resumed");
    assertThat(before).isBetween(1L, 99L);

    int requestsBefore = readRequests().size();
    JobRun resumed = JobRun.of(env, args);

    resumed.assertSucceeded();
    assertThat(db.query("SELECT count(), uniqExact(id), min(id), max(id) FROM resumed"))
        .isEqualTo("100\t100\t0\t99");
    assertThat(resumed.out()).contains("\"resumedAfter\":" + before);
    if (rest()) {
      List<String> reads = readRequests();
      assertThat(reads.get(requestsBefore)).contains("startIndex=40&");
      assertThat(reads.subList(requestsBefore, reads.size())).hasSize(3);
    }
  }

  @Test
  void aBigQueryServerErrorMidReadIsRetried() {
    idTables("flaky", 60, "");
    breakReadsTwice();

    JobRun run = copy(environment(), "flaky", "flaky", "--pageRows=20");

    run.assertSucceeded();
    assertThat(db.query("SELECT count(), uniqExact(id), min(id), max(id) FROM flaky"))
        .isEqualTo("60\t60\t0\t59");
  }

  @Test
  void aQueryRunsOnceAsAJobAndItsResultTableIsShardedAcrossTasks() {
    String sql = "SELECT id FROM `test-project.ds.big` WHERE id < 10";
    idQueryTables(sql, "result1", 10, "from_query");
    for (int task = 0; task < 2; task++) {
      Map<String, String> env = forTask(environment(), "backfill-abc12", 2, task);
      env.put("QUERY", sql);
      // Two pages of 5 rows, one for each task: a task's share is whole pages.
      JobRun run =
          JobRun.of(env, "--clickHouseTable=from_query", "--queryLocation=US", "--pageRows=5");
      run.assertSucceeded();
    }

    assertThat(storedIds("from_query")).isEqualTo("[0,1,2,3,4,5,6,7,8,9]");
    assertThat(bigQuery.requestsTo("/jobs"))
        .filteredOn(r -> r.startsWith("POST"))
        .hasSize(2); // the second task's insert is refused (409) and it reads the first's job
    if (rest()) {
      assertThat(bigQuery.requestsTo("/result1/data")).hasSize(2);
    } else {
      assertThat(storage.createdSessions()).hasSize(1);
      assertThat(storage.createdSessions().get(0).getTable()).endsWith("/tables/result1");
    }
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
    Map<String, String> env = withDeadLetterTable(environment(), "never_created");

    JobRun run = copy(env, "planned", "planned", "--dryRun");

    run.assertSucceeded();
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

    run.assertSucceeded();
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

    JobRun run = copy(environment(), "orphan", "absent");

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

    JobRun run = copy(environment(), "lacking", "lacking");

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

    JobRun run = copy(environment(), "wrong_type", "wrong_type");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("column 'flag' (Date) cannot take BigQuery BOOL");
  }

  @Test
  void aClickHouseOutageMidRunFailsTheJobWithANonZeroExitAndAClearMessage() throws Exception {
    assumeTrue(rest());
    idTables("outage", 100, "");
    String host = java.net.URI.create(db.server().url()).getHost();
    int port = java.net.URI.create(db.server().url()).getPort();
    try (TcpProxy proxy = new TcpProxy(host, port)) {
      bigQuery.onRequest("/outage_snapshot1/data", 3, proxy::close);
      Map<String, String> env = environment();
      env.put("CLICKHOUSE_URL", proxy.url());
      env.put("MAX_RETRIES", "1");

      JobRun run = copy(env, "outage", "outage", "--pageRows=10", "--checkpointTable=none");

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
    String nowhere = "http://127.0.0.1:" + dev.pubsubclickhouse.testing.LocalClickHouse.freePort();
    env.put("CLICKHOUSE_URL", nowhere);

    JobRun run = copy(env, "unreachable", "t");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "backfill failed before reading: "
                + dev.pubsubclickhouse.testing.ClickHouseMistakes.CLOSED_PORT.line(nowhere));
    assertThat(bigQuery.requests()).isEmpty();
  }

  @Test
  void aWrongParameterStopsTheJobWithOneLineBeforeAnyRequest() {
    JobRun run = copy(environment(), "t", "t", "--maxRetries=lots");

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
        copy(env, "secretive", "secretive", "--clickHousePassword=s3cr3t-flag-value", "--dryRun");

    assertThat(run.output()).doesNotContain("s3cr3t");
  }

  /**
   * A source value that happens to be the password, refused by its column: the reason that quotes
   * it is printed, and kept in the dead letter, with the password masked (the row itself is kept as
   * it was read).
   */
  @Test
  void aRefusedValueThatIsThePasswordIsPrintedMasked() {
    Assumptions.assumeTrue(
        db.server().url().startsWith("http://127.0.0.1"), "needs the local pipeline user");
    String password = LocalClickHouse.PIPELINE_PASSWORD;
    bigQuery.table("ds", "leaky", fields("id STRING")).rows.add(row(password));
    db.execute("CREATE TABLE leaky (id UInt8) ENGINE = MergeTree ORDER BY id");
    db.execute(
        "CREATE TABLE leaky_errors (raw_message String, error_message String, stack_trace String,"
            + " failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");
    Map<String, String> env = environment();
    env.put("CLICKHOUSE_USER", LocalClickHouse.PIPELINE_USER);
    env.put("CLICKHOUSE_PASSWORD", password);

    JobRun logged = copy(env, "leaky", "leaky");
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "leaky_errors");
    JobRun deadLettered = copy(env, "leaky", "leaky");

    assertThat(logged.output()).contains("[redacted]").doesNotContain(password);
    deadLettered.assertSucceeded();
    assertThat(deadLettered.output()).doesNotContain(password);
    assertThat(db.query("SELECT error_message FROM leaky_errors"))
        .contains("[redacted]")
        .doesNotContain(password);
  }

  /**
   * A table written while the execution runs: rows appended and changed between task starts and
   * while the first task reads. Every task reads the snapshot the first one pinned: each of its
   * rows exactly once, with its values as of that time, and nothing newer.
   */
  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void tasksOfOneExecutionReadOneSnapshotOfATableThatIsWrittenMeanwhile(int tasks) {
    String name = "live" + tasks;
    BigQueryTable live = bigQuery.table("ds", name, fields("id INTEGER", "v STRING"));
    for (int i = 0; i < 200; i++) {
      live.rows.add(row(Integer.toString(i), "a" + i));
    }
    db.execute("CREATE TABLE " + name + " (id UInt32, v String) ENGINE = MergeTree ORDER BY id");
    int[] next = {200};
    Runnable write =
        () -> {
          for (int i = 0; i < 15; i++) {
            live.append(row(Integer.toString(next[0]), "a" + next[0]));
            next[0]++;
          }
          for (int i = 0; i < 200; i += 20) {
            live.update(i, row(Integer.toString(i), "changed" + next[0]));
          }
        };
    duringReads(write);
    String snapshotTime = null;
    for (int task = 0; task < tasks; task++) {
      Map<String, String> env = forTask(environment(), name + "-1", tasks, task);
      JobRun run =
          JobRun.of(
              env,
              "--inputTableSpec=" + PROJECT + ":ds." + name,
              "--clickHouseTable=" + name,
              "--pageRows=25");
      run.assertSucceeded();
      Matcher pinned = Pattern.compile("\"snapshotTime\":\"([^\"]+)\"").matcher(run.out());
      assertThat(pinned.find()).as(run.output()).isTrue();
      if (snapshotTime == null) {
        snapshotTime = pinned.group(1);
      }
      assertThat(pinned.group(1)).isEqualTo(snapshotTime);
      write.run();
    }

    List<com.fasterxml.jackson.databind.JsonNode> expected =
        live.snapshotAt(java.time.Instant.parse(snapshotTime).toEpochMilli());
    assertThat(expected).hasSize(200);
    assertThat(live.rows.size()).isGreaterThan(expected.size());
    StringBuilder oracle = new StringBuilder();
    expected.stream()
        .sorted(java.util.Comparator.comparingLong(r -> r.path("f").path(0).path("v").asLong()))
        .forEach(
            r ->
                oracle
                    .append(r.path("f").path(0).path("v").asText())
                    .append('\t')
                    .append(r.path("f").path(1).path("v").asText())
                    .append('\n'));
    assertThat(db.query("SELECT id, v FROM " + name + " ORDER BY id, v") + "\n")
        .isEqualTo(oracle.toString());
  }

  @Test
  void aTaskStartedWithOtherParametersThanItsExecutionFailsLoudly() {
    idTables("replanned", 50, "");
    Map<String, String> env = forTask(environment(), "replanned-1", 2, 0);
    JobRun first = copy(env, "replanned", "replanned", "--where=id < 20");
    first.assertSucceeded();

    env.put("CLOUD_RUN_TASK_INDEX", "1");
    JobRun second = copy(env, "replanned", "replanned");

    assertThat(second.exitCode()).isEqualTo(1);
    assertThat(second.out())
        .contains("backfill failed before reading: execution replanned-1 ")
        .contains("for other parameters than this task's");
  }

  @Test
  void aRowRestrictionReadsOnlyTheRowsThatMatch() {
    idTables("restricted", 100, "");

    JobRun run =
        copy(environment(), "restricted", "restricted", "--rowRestriction=id >= 10 AND id < 20");

    run.assertSucceeded();
    assertThat(storedIds("restricted")).isEqualTo("[10,11,12,13,14,15,16,17,18,19]");
    assertThat(run.out()).contains("where id >= 10 AND id < 20");
  }

  /** Every step that talks to BigQuery meets one 503 (or UNAVAILABLE), and the job completes. */
  @Test
  void aTransientFailureAtEachBigQueryStepIsRetried() {
    idTable("ds", "steps", 40).rows.add(row("300"));
    db.execute("CREATE TABLE steps (id UInt8) ENGINE = MergeTree ORDER BY id");
    bigQuery.table("backfill_dead_letters", "steps_error_records", DEAD_LETTER_FIELDS);
    String api = "/bigquery/v2/projects/test-project";
    bigQuery.failNext("GET " + api + "/datasets/ds/tables/steps", 503, 1);
    bigQuery.failNext("GET " + api + "/datasets/backfill_dead_letters", 503, 1);
    bigQuery.failNext(":testIamPermissions", 503, 1);
    if (rest()) {
      bigQuery.failNext("POST " + api + "/jobs", 503, 1);
      bigQuery.failNext("GET " + api + "/jobs/", 503, 1);
      bigQuery.failNext("GET " + api + "/datasets/_anon/tables/steps_snapshot1?", 503, 1);
      bigQuery.failNext("/data?", 503, 1);
    } else {
      storage.failCreates(1);
      storage.failReadsAtStart(1);
    }
    Map<String, String> env = environment();
    env.remove("OUTPUT_DEADLETTER_TABLE");

    JobRun run = copy(env, "steps", "steps", "--pageRows=15");

    run.assertSucceeded();
    assertThat(bigQuery.unusedFaults()).isEmpty();
    assertThat(db.query("SELECT count(), uniqExact(id), min(id), max(id) FROM steps"))
        .isEqualTo("40\t40\t0\t39");
    assertThat(bigQuery.insertedRows()).hasSize(1);
    assertThat(bigQuery.insertedRows().get(0).path("json").path("payloadString").asText())
        .isEqualTo("{\"id\":300}");
  }

  @Test
  void aBigQueryFailureThatPersistsNamesTheStepAndTheRequest() {
    bigQuery.table("ds", "down", fields("id INTEGER")).rows.add(row("1"));
    db.execute("CREATE TABLE down (id UInt8) ENGINE = MergeTree ORDER BY id");
    bigQuery.failNext("GET /bigquery/v2/projects/test-project/datasets/ds/tables/down", 503, 100);

    JobRun run = copy(environment(), "down", "down");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "backfill failed before reading: BigQuery tables.get (test-project:ds.down) failed"
                + " after 4 attempts: HTTP 503 injected fault");
  }

  @Test
  void aMissingDeadLetterDatasetIsNamedAtStartWithWhatToDo() {
    idTables("no_dataset", 5, "");
    bigQuery.missingDataset("backfill_dead_letters");
    Map<String, String> env = environment();
    env.remove("OUTPUT_DEADLETTER_TABLE");

    for (String dryRun : List.of("--dryRun=false", "--dryRun")) {
      JobRun run =
          JobRun.of(
              env,
              "--inputTableSpec=" + PROJECT + ":ds.no_dataset",
              "--clickHouseTable=no_dataset",
              dryRun);

      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.out())
          .contains(
              "backfill failed before reading: the dead-letter dataset"
                  + " test-project:backfill_dead_letters does not exist: create it (Terraform's"
                  + " backfill job creates one and grants roles/bigquery.dataEditor on it), or set"
                  + " OUTPUT_DEADLETTER_DATASET / OUTPUT_DEADLETTER_TABLE (none turns dead letters"
                  + " off)");
    }
    assertThat(db.count("no_dataset")).isZero();
    assertThat(readRequests()).isEmpty();
  }

  @Test
  void aDeadLetterTableTheJobCannotWriteIsNamedAtStart() {
    idTables("read_only", 5, "");
    bigQuery.table("rejects", "read_only_errors", DEAD_LETTER_FIELDS);
    bigQuery.readOnlyTable("read_only_errors");

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ":ds.read_only",
            "--clickHouseTable=read_only",
            "--outputDeadletterTable=" + PROJECT + ":rejects.read_only_errors");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "the job cannot write its dead letters into test-project:rejects.read_only_errors:"
                + " its service account lacks bigquery.tables.updateData"
                + " (roles/bigquery.dataEditor on dataset test-project:rejects)");
    assertThat(db.count("read_only")).isZero();
  }

  /**
   * {@code --createTable} makes the table from the BigQuery schema, and a run fills it: every type
   * of the Dataflow template's type table arrives with its value.
   */
  @Test
  void createTableMakesTheTableFromTheBigQuerySchemaAndEveryTypeRoundTrips() {
    ArrayNode fields =
        fields(
            "id INTEGER REQUIRED",
            "i64 INTEGER",
            "f FLOAT",
            "n NUMERIC",
            "bn BIGNUMERIC",
            "b BOOLEAN",
            "s STRING",
            "by BYTES",
            "d DATE",
            "dt DATETIME",
            "tm TIME",
            "ts TIMESTAMP",
            "geo GEOGRAPHY",
            "js JSON",
            "arr INTEGER REPEATED");
    fields.add(BigQueryRows.field("st", "RECORD", "NULLABLE", fields("x INTEGER", "y STRING")));
    BigQueryTable source = bigQuery.table("ds", "created", fields);
    source.rows.add(
        row(
            "1",
            "-9223372036854775808",
            "-2.5",
            "-12345678901234567890.123456789",
            "0.00000000000000000000000000000000000001",
            "false",
            "naïve ☃",
            "AAEC/w==",
            "1970-01-01",
            "2026-01-15T12:34:56.123456",
            "23:59:59.999999",
            "1768480496123456",
            "POINT(-122.35 47.62)",
            "{\"a\":null}",
            List.of("-1", "0", "1"),
            record("7", "seven")));
    source.rows.add(
        row(
            "2", null, null, null, null, null, null, null, null, null, null, null, null, null,
            List.of(), null));
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.created", "--clickHouseTable=created", "--createTable"
    };

    JobRun dryRun = JobRun.of(environment(), args[0], args[1], args[2], "--dryRun");
    dryRun.assertSucceeded();
    assertThat(dryRun.out())
        .contains(
            "CREATE TABLE IF NOT EXISTS `"
                + db.name()
                + "`.`created`\n(\n    `id` Int64,\n    `i64` Nullable(Int64),\n")
        .contains(
            "    `st` Tuple(x Nullable(Int64), y Nullable(String)) DEFAULT tuple(NULL, NULL)\n)\n"
                + "ENGINE = MergeTree\nORDER BY `id`\n")
        .contains("bn      Nullable(Decimal(76, 38))");
    assertThat(db.query("EXISTS TABLE created")).isEqualTo("0");

    JobRun run = JobRun.of(environment(), args);

    run.assertSucceeded();
    assertThat(db.query("SELECT * EXCEPT by, hex(by) FROM created ORDER BY id FORMAT TSV"))
        .isEqualTo(
            "1\t-9223372036854775808\t-2.5\t-12345678901234567890.123456789"
                + "\t0.00000000000000000000000000000000000001\tfalse\tnaïve ☃"
                + "\t1970-01-01\t2026-01-15 12:34:56.123456\t23:59:59.999999"
                + "\t2026-01-15 12:34:56.123456\tPOINT(-122.35 47.62)\t{\"a\":null}\t[-1,0,1]"
                + "\t(7,'seven')\t000102FF\n"
                + "2"
                + "\t\\N".repeat(12)
                + "\t[]\t(NULL,NULL)\t\\N");
  }

  /**
   * A NULLABLE STRUCT holding a STRUCT and an ARRAY (GA4's device.web_info): the column's DEFAULT,
   * which stands for a NULL struct, is a tuple of its elements' empty values, nested alike.
   */
  @Test
  void createTableMakesANullableStructOfAStructAndANullStructIsItsDefault() {
    ArrayNode device = fields("category STRING", "tags STRING REPEATED");
    device.add(BigQueryRows.field("web_info", "RECORD", "NULLABLE", fields("browser STRING")));
    ArrayNode fields = fields("id INTEGER REQUIRED");
    fields.add(BigQueryRows.field("device", "RECORD", "NULLABLE", device));
    BigQueryTable source = bigQuery.table("ds", "nested", fields);
    source.rows.add(row("1", record("desktop", List.of("a", "b"), record("Chrome"))));
    source.rows.add(row("2", null));
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.nested", "--clickHouseTable=nested", "--createTable"
    };

    JobRun dryRun = JobRun.of(environment(), args[0], args[1], args[2], "--dryRun");
    JobRun run = JobRun.of(environment(), args);

    dryRun.assertSucceeded();
    assertThat(dryRun.out())
        .contains(
            "    `device` Tuple(category Nullable(String), tags Array(String),"
                + " web_info Tuple(browser Nullable(String)))"
                + " DEFAULT tuple(NULL, [], tuple(NULL))\n");
    run.assertSucceeded();
    assertThat(db.query("SELECT * FROM nested ORDER BY id FORMAT TSV"))
        .isEqualTo("1\t('desktop',['a','b'],('Chrome'))\n2\t(NULL,[],(NULL))");
  }

  /** A CREATE TABLE ClickHouse refuses is named as such, with ClickHouse's reason. */
  @Test
  void aCreateTableClickHouseRefusesIsNamedWithItsReason() {
    bigQuery.table("ds", "refused_ddl", fields("id INTEGER")).rows.add(row("1"));

    JobRun run =
        copy(
            environment(),
            "refused_ddl",
            "refused_ddl",
            "--createTable",
            "--orderBy=(no_such_column)");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "backfill failed before reading: ClickHouse refused the CREATE TABLE of --createTable:"
                + " Code: 47.");
  }

  /** A NULL struct inside a struct, REQUIRED or not, arrives as the tuple of its leaves' NULLs. */
  @Test
  void aNullStructInsideAStructArrivesAsATupleOfNulls() {
    ArrayNode fields = fields("id INTEGER REQUIRED");
    ArrayNode geo = fields("city STRING");
    geo.add(BigQueryRows.field("region", "RECORD", "NULLABLE", fields("name STRING")));
    fields.add(BigQueryRows.field("geo", "RECORD", "REQUIRED", geo));
    ArrayNode device = fields("category STRING");
    device.add(BigQueryRows.field("web_info", "RECORD", "NULLABLE", fields("browser STRING")));
    fields.add(BigQueryRows.field("device", "RECORD", "NULLABLE", device));
    BigQueryTable source = bigQuery.table("ds", "inner_null", fields);
    source.rows.add(row("1", record("Paris", record("IDF")), record("desktop", record("Chrome"))));
    source.rows.add(row("2", record("Oslo", null), record("mobile", null)));

    JobRun run = copy(environment(), "inner_null", "inner_null", "--createTable");

    run.assertSucceeded();
    assertThat(db.query("SELECT * FROM inner_null ORDER BY id FORMAT TSV"))
        .isEqualTo(
            "1\t('Paris',('IDF'))\t('desktop',('Chrome'))\n2\t('Oslo',(NULL))\t('mobile',(NULL))");
  }

  /**
   * A run dead-letters rows the table refuses (a value too large for its column, a constraint); the
   * user widens the column and drops the constraint, and runs again: the second execution writes
   * exactly the rows refused before, once, and the dead letters are not written again; a third,
   * plain re-run writes nothing. The table does not deduplicate: a row sent twice would stay twice.
   */
  @Test
  void aRecoveryRunAfterTheTableIsFixedWritesTheRowsRefusedBeforeAndOnlyThose() {
    BigQueryTable source = bigQuery.table("ds", "recover", fields("id INTEGER", "level INTEGER"));
    StringBuilder oracle = new StringBuilder();
    for (int i = 0; i < 30; i++) {
      int level = i == 3 ? 300 : i == 17 ? 1000 : i == 25 ? -200 : i;
      source.rows.add(row(Integer.toString(i), Integer.toString(level)));
      oracle.append(i).append('\t').append(level).append('\n');
    }
    db.execute(
        "CREATE TABLE recover (id UInt32, level Int8, CONSTRAINT not_seven CHECK id != 7)"
            + " ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = environment();
    env.remove("OUTPUT_DEADLETTER_TABLE");
    withDeadLetterTable(env, "recover_errors");
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.recover", "--clickHouseTable=recover", "--pageRows=10"
    };

    env.put("CLOUD_RUN_EXECUTION", "recover-1");
    JobRun first = JobRun.of(env, args);
    first.assertSucceeded();
    assertThat(storedIds("recover"))
        .isEqualTo("[0,1,2,4,5,6,8,9,10,11,12,13,14,15,16,18,19,20,21,22,23,24,26,27,28,29]");
    assertThat(first.out()).contains("\"deadLettered\":4");

    db.execute("ALTER TABLE recover MODIFY COLUMN level Int16");
    db.execute("ALTER TABLE recover DROP CONSTRAINT not_seven");
    // The recovery run has two tasks: each tries its share of the refused rows.
    long recovered = 0;
    for (int task = 0; task < 2; task++) {
      forTask(env, "recover-2", 2, task);
      JobRun recovery = JobRun.of(env, args);
      recovery.assertSucceeded();
      assertThat(recovery.out()).contains("\"deadLettered\":0");
      Matcher count = Pattern.compile("\"recovered\":(\\d+),").matcher(recovery.out());
      if (count.find()) {
        recovered += Long.parseLong(count.group(1));
      }
    }

    assertThat(recovered).isEqualTo(4);
    assertThat(db.query("SELECT id, level FROM recover ORDER BY id") + "\n")
        .isEqualTo(oracle.toString());
    assertThat(
            db.query(
                "SELECT groupArray(raw_message) FROM"
                    + " (SELECT * FROM recover_errors ORDER BY raw_message)"))
        .as("each refused row is dead-lettered once, by the first run")
        .isEqualTo(
            "['{\"id\":17,\"level\":1000}','{\"id\":25,\"level\":-200}',"
                + "'{\"id\":3,\"level\":300}','{\"id\":7,\"level\":7}']");
    assertThat(bigQuery.insertedRows()).hasSize(4);

    forTask(env, "recover-3", 1, 0);
    JobRun plain = JobRun.of(env, args);
    plain.assertSucceeded();
    assertThat(db.query("SELECT id, level FROM recover ORDER BY id") + "\n")
        .isEqualTo(oracle.toString());
    assertThat(plain.out()).contains("\"written\":0");
  }

  /**
   * A recovery whose rows landed but whose checkpoint record did not (the task died between the
   * two) sends the same rows with the same deduplication tokens when it is retried: a deduplicating
   * table keeps each once.
   */
  @Test
  void aRecoveryRetriedAfterItsRowsLandedSendsTheSameTokens() {
    BigQueryTable source =
        bigQuery.table("ds", "recover_again", fields("id INTEGER", "level INTEGER"));
    StringBuilder oracle = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      int level = i == 4 || i == 12 ? 300 + i : i;
      source.rows.add(row(Integer.toString(i), Integer.toString(level)));
      oracle.append(i).append('\t').append(level).append('\n');
    }
    db.execute(
        "CREATE TABLE recover_again (id UInt32, level Int8) ENGINE = MergeTree ORDER BY id"
            + " SETTINGS non_replicated_deduplication_window = 100");
    Map<String, String> env = withDeadLetterTable(environment(), "recover_again_errors");
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.recover_again",
      "--clickHouseTable=recover_again",
      "--pageRows=10",
      "--checkpointTable=recover_again_checkpoints"
    };
    env.put("CLOUD_RUN_EXECUTION", "recover-again-1");
    JobRun first = JobRun.of(env, args);
    first.assertSucceeded();
    db.execute("ALTER TABLE recover_again MODIFY COLUMN level Int16");
    db.execute(
        "ALTER TABLE recover_again_checkpoints ADD CONSTRAINT no_recovery CHECK kind != 'recovery'");

    env.put("CLOUD_RUN_EXECUTION", "recover-again-2");
    JobRun interrupted = JobRun.of(env, args);
    assertThat(interrupted.exitCode()).as(interrupted.output()).isEqualTo(1);
    assertThat(db.query("SELECT id, level FROM recover_again WHERE id IN (4, 12)"))
        .as("the first page's recovered row landed before its record failed, and the task stopped")
        .isEqualTo("4\t304");
    db.execute("ALTER TABLE recover_again_checkpoints DROP CONSTRAINT no_recovery");
    JobRun retried = JobRun.of(env, args);

    retried.assertSucceeded();
    assertThat(retried.out()).contains("\"recovered\":2");
    assertThat(db.query("SELECT id, level FROM recover_again ORDER BY id") + "\n")
        .isEqualTo(oracle.toString());
    assertThat(db.count("recover_again_errors")).isEqualTo(2);
  }

  /**
   * A second execution of the same unchanged table into the same unchanged target, with its rows
   * already written by the first (two tasks each): no row is written twice, though the table does
   * not deduplicate.
   */
  @Test
  void aPlainReRunOfAnUnchangedTableWritesNothingTwice() {
    idTables("rerun", 120, "");
    for (String execution : List.of("rerun-1", "rerun-2")) {
      for (int task = 0; task < 2; task++) {
        Map<String, String> env = forTask(environment(), execution, 2, task);
        JobRun run = copy(env, "rerun", "rerun", "--pageRows=25");
        run.assertSucceeded();
        if (execution.equals("rerun-2")) {
          assertThat(run.out()).contains("\"written\":0");
        }
      }
    }
    assertThat(storedIds("rerun")).isEqualTo(ids(0, 120));
  }

  /**
   * A view's definition, and so its last-modified time, stays the same while the rows under it
   * change: a new execution reads it again in full, not on from the earlier execution's positions.
   */
  @Test
  void aNewExecutionOfAViewReadsItAgainInFull() {
    idTables("view_rerun", 10, "");
    BigQueryTable view = bigQuery.table("ds", "view_rerun");
    view.type = "VIEW";
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.view_rerun",
      "--clickHouseTable=view_rerun",
      "--pageRows=4"
    };
    Map<String, String> env = environment();
    env.put("CLOUD_RUN_EXECUTION", "view-1");
    JobRun first = JobRun.of(env, args);
    first.assertSucceeded();
    db.execute("TRUNCATE TABLE view_rerun");
    for (int i = 104; i >= 100; i--) {
      view.rows.add(0, row(Integer.toString(i)));
    }

    env.put("CLOUD_RUN_EXECUTION", "view-2");
    JobRun second = JobRun.of(env, args);

    second.assertSucceeded();
    assertThat(storedIds("view_rerun")).isEqualTo("[0,1,2,3,4,5,6,7,8,9,100,101,102,103,104]");
  }

  /**
   * BigQuery answers a query it ran before from its cache, with the earlier job's result table: a
   * new execution of the query still reads that result in full.
   */
  @Test
  void aNewExecutionOfAQueryAnsweredFromTheCacheReadsItAgainInFull() {
    String sql = "SELECT id FROM `test-project.ds.cached` WHERE id < 10";
    idQueryTables(sql, "cached_result", 10, "cached");
    Map<String, String> env = environment();
    env.put("QUERY", sql);
    env.put("CLOUD_RUN_EXECUTION", "cached-1");
    JobRun first = JobRun.of(env, "--clickHouseTable=cached", "--pageRows=4");
    first.assertSucceeded();
    db.execute("TRUNCATE TABLE cached");

    env.put("CLOUD_RUN_EXECUTION", "cached-2");
    JobRun second = JobRun.of(env, "--clickHouseTable=cached", "--pageRows=4");

    second.assertSucceeded();
    assertThat(storedIds("cached")).isEqualTo(ids(0, 10));
  }

  /**
   * The first execution fails part way for good (its retries used up); a new execution with the
   * same parameters writes the rest, and nothing twice.
   */
  @Test
  void aNewExecutionAfterAFailedOneWritesTheRestOnce() {
    idTables("unfinished", 100, "");
    failReadsAfter(40);
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.unfinished",
      "--clickHouseTable=unfinished",
      "--pageRows=20"
    };
    Map<String, String> env = environment();
    env.put("CLOUD_RUN_EXECUTION", "unfinished-1");
    JobRun failed = JobRun.of(env, args);
    assertThat(failed.exitCode()).as(failed.output()).isEqualTo(1);
    assertThat(db.count("unfinished")).isBetween(1L, 99L);

    env.put("CLOUD_RUN_EXECUTION", "unfinished-2");
    JobRun second = JobRun.of(env, args);

    second.assertSucceeded();
    assertThat(storedIds("unfinished")).isEqualTo(ids(0, 100));
  }

  /**
   * Rows refused while the job had no dead-letter sink were neither written nor kept (exit 1): the
   * next run, now with a dead-letter table, keeps them there, without a change to the target.
   */
  @Test
  void rowsRefusedWithNowhereToGoAreDeadLetteredByTheNextRunThatHasASink() {
    BigQueryTable source = bigQuery.table("ds", "unkept", fields("id INTEGER"));
    for (int i = 0; i < 12; i++) {
      source.rows.add(row(Integer.toString(i == 5 ? -5 : i)));
    }
    db.execute("CREATE TABLE unkept (id UInt8) ENGINE = MergeTree ORDER BY id");
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.unkept", "--clickHouseTable=unkept", "--pageRows=5"
    };
    Map<String, String> env = environment();
    env.put("CLOUD_RUN_EXECUTION", "unkept-1");
    JobRun first = JobRun.of(env, args);
    assertThat(first.exitCode()).as(first.output()).isEqualTo(1);

    env.put("CLOUD_RUN_EXECUTION", "unkept-2");
    withDeadLetterTable(env, "unkept_errors");
    JobRun second = JobRun.of(env, args);

    second.assertSucceeded();
    assertThat(db.query("SELECT raw_message, error_message FROM unkept_errors"))
        .isEqualTo(
            "{\"id\":-5}\tsource row 5: column \\'id\\' (UInt8) rejects -5: out of range [0, 255]");
    assertThat(storedIds("unkept")).isEqualTo("[0,1,2,3,4,6,7,8,9,10,11]");
  }

  /** "[from,...,to-1]" as ClickHouse prints groupArray. */
  static String ids(int from, int to) {
    StringBuilder ids = new StringBuilder("[");
    for (int i = from; i < to; i++) {
      ids.append(i == from ? "" : ",").append(i);
    }
    return ids.append(']').toString();
  }

  /** tabledata.insertAll of the dead-letter table answers 503 twice: retried, kept once. */
  @Test
  void aTransientFailureOfTheDeadLetterTableIsRetried() {
    BigQueryTable source = bigQuery.table("ds", "dl_retry", fields("id INTEGER"));
    source.rows.add(row("1"));
    source.rows.add(row("300"));
    db.execute("CREATE TABLE dl_retry (id UInt8) ENGINE = MergeTree ORDER BY id");
    bigQuery.failNext("/insertAll", 503, 2);
    Map<String, String> env = environment();
    env.remove("OUTPUT_DEADLETTER_TABLE");

    JobRun run = copy(env, "dl_retry", "dl_retry");

    run.assertSucceeded();
    assertThat(bigQuery.unusedFaults()).isEmpty();
    assertThat(bigQuery.insertedRows()).hasSize(1);
    assertThat(bigQuery.insertedRows().get(0).path("json").path("payloadString").asText())
        .isEqualTo("{\"id\":300}");
    assertThat(db.query("SELECT groupArray(id) FROM dl_retry")).isEqualTo("[1]");
  }

  /** A dead-letter table that keeps failing stops the task, naming the step. */
  @Test
  void aDeadLetterTableThatKeepsFailingStopsTheTaskNamingTheStep() {
    BigQueryTable source = bigQuery.table("ds", "dl_down", fields("id INTEGER"));
    source.rows.add(row("300"));
    db.execute("CREATE TABLE dl_down (id UInt8) ENGINE = MergeTree ORDER BY id");
    bigQuery.failNext("/insertAll", 503, 100);
    Map<String, String> env = environment();
    env.remove("OUTPUT_DEADLETTER_TABLE");

    JobRun run = copy(env, "dl_down", "dl_down");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "BigQuery tabledata.insertAll (test-project:backfill_dead_letters.dl_down_error_records)"
                + " failed after 4 attempts: HTTP 503");
    assertThat(bigQuery.requestsTo("/insertAll")).hasSize(4);
  }

  private static final ArrayNode DEAD_LETTER_FIELDS =
      fields(
          "timestamp TIMESTAMP REQUIRED",
          "payloadString STRING REQUIRED",
          "payloadBytes BYTES REQUIRED",
          "errorMessage STRING",
          "stacktrace STRING");
}
