package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.fields;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.row;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.pubsubclickhouse.testing.TestDatabase;
import dev.pubsubclickhouse.testing.bigquery.BigQueryTable;
import dev.pubsubclickhouse.testing.bigquery.LocalBigQuery;
import dev.pubsubclickhouse.testing.bigquery.StorageReadApi;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;

/**
 * What the end-to-end tests of every topic work with: the stand-in BigQuery and its Storage Read
 * API, the ClickHouse test database, the reader under test and how to make it fail, and the helpers
 * that make tables and run the job.
 */
interface BackfillFixture {
  String PROJECT = "test-project";

  /** The schema of a BigQuery dead-letter table, for tests that make it before the job does. */
  ArrayNode DEAD_LETTER_FIELDS =
      fields(
          "timestamp TIMESTAMP REQUIRED",
          "payloadString STRING REQUIRED",
          "payloadBytes BYTES REQUIRED",
          "errorMessage STRING",
          "stacktrace STRING");

  TestDatabase db();

  /** The stand-in BigQuery of the running test. */
  LocalBigQuery bigQuery();

  /** The stand-in Storage Read API of {@link #bigQuery()}. */
  StorageReadApi storage();

  /** The reader's parameters. */
  Map<String, String> readerEnvironment();

  /** True for the REST readers, whose requests some tests check one by one. */
  boolean rest();

  /** The next read fails for good once {@code rows} rows of the source were read. */
  void failReadsAfter(int rows);

  /** Reads fail for a transient reason twice, part way. */
  void breakReadsTwice();

  /** Runs {@code action} while the first task reads. */
  void duringReads(Runnable action);

  /** The read requests that followed such failures, in order. */
  List<String> readRequests();

  default Map<String, String> environment() {
    Map<String, String> env = new HashMap<>();
    env.putAll(readerEnvironment());
    env.put("BIGQUERY_MAX_ATTEMPTS", "4");
    env.putAll(db().server().environment(db().name()));
    env.put("BIGQUERY_ENDPOINT", bigQuery().endpoint());
    env.put("GOOGLE_CLOUD_PROJECT", PROJECT);
    env.put("OUTPUT_DEADLETTER_TABLE", "none");
    return env;
  }

  /**
   * The job's environment with the BigQuery dead-letter table it uses unless told otherwise, which
   * {@link #environment()} turns off.
   */
  default Map<String, String> environmentWithBigQueryDeadLetters() {
    Map<String, String> env = environment();
    env.remove("OUTPUT_DEADLETTER_TABLE");
    return env;
  }

  /** {@code env} with ClickHouse dead-letter table {@code table}, which the job creates. */
  default Map<String, String> withDeadLetterTable(Map<String, String> env, String table) {
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", table);
    env.put("CREATE_DEAD_LETTER_TABLE", "true");
    return env;
  }

  /**
   * {@code env} with what Cloud Run sets for task {@code task} (from 0) of {@code tasks} of
   * execution {@code execution}.
   */
  default Map<String, String> forTask(
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
  default JobRun copy(Map<String, String> env, String source, String target, String... flags) {
    return JobRun.of(env, copyArgs(source, target, flags));
  }

  /** The job's arguments to copy BigQuery's {@code ds.source} into ClickHouse's {@code target}. */
  default String[] copyArgs(String source, String target, String... flags) {
    List<String> args = new ArrayList<>();
    args.add("--inputTableSpec=" + PROJECT + ":ds." + source);
    args.add("--clickHouseTable=" + target);
    args.addAll(List.of(flags));
    return args.toArray(String[]::new);
  }

  /**
   * Runs the job with {@code env} as the one task of execution {@code execution}; {@code env} keeps
   * that execution for the runs after.
   */
  default JobRun runAs(Map<String, String> env, String execution, String... args) {
    env.put("CLOUD_RUN_EXECUTION", execution);
    return JobRun.of(env, args);
  }

  /** A BigQuery table ds.{name} with {@code fields}, holding {@code rows}. */
  default BigQueryTable sourceTable(String name, ArrayNode fields, JsonNode... rows) {
    BigQueryTable table = bigQuery().table("ds", name, fields);
    table.rows.addAll(List.of(rows));
    return table;
  }

  /**
   * A BigQuery table ds.{name}(id, level) of ids 0..rows-1, each with level {@code level(id)};
   * returns its rows as ClickHouse prints them, a line each.
   */
  default String idLevelTable(String name, int rows, IntUnaryOperator level) {
    BigQueryTable source = bigQuery().table("ds", name, fields("id INTEGER", "level INTEGER"));
    StringBuilder printed = new StringBuilder();
    for (int i = 0; i < rows; i++) {
      source.rows.add(row(Integer.toString(i), Integer.toString(level.applyAsInt(i))));
      printed.append(i).append('\t').append(level.applyAsInt(i)).append('\n');
    }
    return printed.toString();
  }

  /**
   * Field {@code field} of the {@code index}th row the job inserted into a BigQuery dead-letter
   * table.
   */
  default String insertedDeadLetter(int index, String field) {
    return bigQuery().insertedRows().get(index).path("json").path(field).asText();
  }

  /** A BigQuery table {dataset}.{name} of one column id, holding ids 0..rows-1. */
  default BigQueryTable idTable(String dataset, String name, int rows) {
    BigQueryTable table = bigQuery().table(dataset, name, fields("id INTEGER"));
    for (int i = 0; i < rows; i++) {
      table.rows.add(row(Integer.toString(i)));
    }
    return table;
  }

  /**
   * BigQuery answers {@code sql} with its result table _anon.{resultTable} of ids 0..rows-1, and a
   * ClickHouse table {target}(id UInt32).
   */
  default void idQueryTables(String sql, String resultTable, int rows, String target) {
    bigQuery().queryResult(sql, "_anon", resultTable);
    idTable("_anon", resultTable, rows);
    db().execute("CREATE TABLE " + target + " (id UInt32) ENGINE = MergeTree ORDER BY id");
  }

  /** The ids of ClickHouse table {@code table} in order, as groupArray prints them. */
  default String storedIds(String table) {
    return db().query("SELECT groupArray(id) FROM (SELECT id FROM " + table + " ORDER BY id)");
  }

  /** A BigQuery table ds.{name} of ids 0..rows-1, and a ClickHouse table {name}(id UInt32). */
  default void idTables(String name, int rows, String clickHouseSettings) {
    idTable("ds", name, rows);
    db().execute(
            "CREATE TABLE "
                + name
                + " (id UInt32, loaded_at DateTime64(6) DEFAULT now64(6)) ENGINE = MergeTree ORDER BY id"
                + clickHouseSettings);
  }

  /** "[from,...,to-1]" as ClickHouse prints groupArray. */
  default String ids(int from, int to) {
    StringBuilder ids = new StringBuilder("[");
    for (int i = from; i < to; i++) {
      ids.append(i == from ? "" : ",").append(i);
    }
    return ids.append(']').toString();
  }
}
