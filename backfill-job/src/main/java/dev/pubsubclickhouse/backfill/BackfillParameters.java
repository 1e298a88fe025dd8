package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import dev.pubsubclickhouse.core.config.Parameter;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Every parameter of the backfill job. Flags carry the Dataflow "BigQuery to ClickHouse" template's
 * names, so a template user's parameter list works unchanged; --help and the README table are made
 * from {@link #ALL}.
 */
public final class BackfillParameters {
  private BackfillParameters() {}

  public static final Parameter INPUT_TABLE_SPEC =
      Parameter.of(
              "INPUT_TABLE_SPEC",
              null,
              "BigQuery table to read: `project:dataset.table` or `project.dataset.table` (a view"
                  + " is read through a query). Either this or QUERY.")
          .withFlag("inputTableSpec");
  public static final Parameter QUERY =
      Parameter.of(
              "QUERY",
              null,
              "BigQuery SQL whose result is read instead of a table; wins over INPUT_TABLE_SPEC.")
          .withFlag("query");
  public static final Parameter USE_LEGACY_SQL =
      Parameter.of("USE_LEGACY_SQL", "false", "Run QUERY as legacy SQL.").withFlag("useLegacySql");
  public static final Parameter QUERY_LOCATION =
      Parameter.of(
              "QUERY_LOCATION",
              null,
              "Location the query job runs in (e.g. `US`), needed for some authorized views.")
          .withFlag("queryLocation");
  public static final Parameter QUERY_TEMP_DATASET =
      Parameter.of(
              "QUERY_TEMP_DATASET",
              null,
              "Existing dataset for the query's result table (else BigQuery's anonymous one).")
          .withFlag("queryTempDataset");
  public static final Parameter KMS_ENCRYPTION_KEY =
      Parameter.of(
              "KMS_ENCRYPTION_KEY",
              null,
              "Cloud KMS key for the query's result table:"
                  + " projects/P/locations/L/keyRings/R/cryptoKeys/K.")
          .withFlag("KMSEncryptionKey");
  public static final Parameter JDBC_URL =
      Parameter.of(
              "JDBC_URL",
              null,
              "ClickHouse as the template names it: `jdbc:clickhouse://host:port/db?ssl=true`;"
                  + " read as CLICKHOUSE_URL (https when ssl=true) and CLICKHOUSE_DATABASE.")
          .withFlag("jdbcUrl");
  public static final Parameter CLICKHOUSE_URL = ClickHouseParameters.URL.withFlag("clickHouseUrl");
  public static final Parameter CLICKHOUSE_DATABASE =
      ClickHouseParameters.DATABASE.withFlag("clickHouseDatabase");
  public static final Parameter OUTPUT_DEADLETTER_TABLE =
      Parameter.of(
              "OUTPUT_DEADLETTER_TABLE",
              null,
              "BigQuery table (`project:dataset.table`) for rows that cannot be written; created"
                  + " when missing. Unset: `<input table>_error_records` (a query:"
                  + " `query_error_records`) in OUTPUT_DEADLETTER_DATASET. `none` turns it off.")
          .withFlag("outputDeadletterTable");
  public static final Parameter OUTPUT_DEADLETTER_DATASET =
      Parameter.of(
              "OUTPUT_DEADLETTER_DATASET",
              "backfill_dead_letters",
              "BigQuery dataset (`dataset` or `project:dataset`, default project: the job's) of"
                  + " the default dead-letter table. It must exist and the job's account needs"
                  + " `roles/bigquery.dataEditor` on it (Terraform creates and grants it); checked"
                  + " at start.")
          .withFlag("outputDeadletterDataset");
  public static final Parameter PROJECT =
      Parameter.of(
              "GOOGLE_CLOUD_PROJECT",
              null,
              "Project that runs BigQuery jobs and reads; unset: the input table's project.")
          .withFlag("project");
  public static final Parameter BIGQUERY_ENDPOINT =
      Parameter.of(
              "BIGQUERY_ENDPOINT",
              null,
              "BigQuery REST root URL override (emulator, test server), e.g."
                  + " `http://127.0.0.1:9050`; no credentials then unless"
                  + " GOOGLE_APPLICATION_CREDENTIALS is set. https://, or http:// to this"
                  + " machine.")
          .withFlag("bigQueryEndpoint");
  public static final Parameter BIGQUERY_STORAGE_ENDPOINT =
      Parameter.of(
              "BIGQUERY_STORAGE_ENDPOINT",
              null,
              "BigQuery Storage Read API `host:port` override (a test server, plaintext gRPC); no"
                  + " credentials then unless GOOGLE_APPLICATION_CREDENTIALS is set.")
          .withFlag("bigQueryStorageEndpoint");
  public static final Parameter BIGQUERY_MAX_ATTEMPTS =
      Parameter.of(
              "BIGQUERY_MAX_ATTEMPTS",
              "8",
              "Attempts of every BigQuery call (job insert and polling, table metadata, page and"
                  + " stream reads, dead-letter inserts) through transient failures (5xx, 429,"
                  + " rateLimitExceeded, connection resets), with exponential backoff from 200 ms"
                  + " or the server's Retry-After.")
          .withFlag("bigQueryMaxAttempts");
  public static final Parameter ROW_RESTRICTION =
      Parameter.of(
              "ROW_RESTRICTION",
              null,
              "Read only the rows of INPUT_TABLE_SPEC that match this SQL condition, e.g."
                  + " `ts >= '2025-12-01' AND ts < '2026-01-01'` (a time range, a partition, an"
                  + " incremental backfill). Also `--where`.")
          .withFlag("rowRestriction");
  public static final Parameter PAGE_ROWS =
      Parameter.of(
              "PAGE_ROWS",
              "50000",
              "Rows per page: one INSERT each (REST: pages cut from row 0, tabledata.list answers"
                  + " gathered up to this many rows, tasks sharing whole pages; keep it the same for"
                  + " every execution of a source, see \"Duplicates, retries and resume\"; Storage"
                  + " Read API: stream blocks gathered up to this many rows).")
          .withFlag("pageRows");
  public static final Parameter PREFETCH_PAGES =
      Parameter.of(
              "PREFETCH_PAGES",
              "2",
              "Pages read ahead while earlier ones are encoded and inserted (bounds memory).")
          .withFlag("prefetchPages");
  public static final Parameter PAGE_READER =
      Parameter.of(
              "PAGE_READER",
              null,
              "How rows are read. `storage`: the BigQuery Storage Read API, Avro streams at the"
                  + " execution's snapshot time (the default); `rest`: tabledata.list pages of the"
                  + " snapshot's query result, parsed by a streaming JSON reader (the default when"
                  + " BIGQUERY_ENDPOINT is set: emulators, test servers); `client`: the same"
                  + " through the client library's parser (a slower reference path).")
          .withFlag("pageReader");
  public static final Parameter STREAMS_PER_TASK =
      Parameter.of(
              "STREAMS_PER_TASK",
              "2",
              "Storage Read API streams each task reads at once; the execution asks BigQuery for"
                  + " tasks times this many.")
          .withFlag("streamsPerTask");
  public static final Parameter CHECKPOINT_TABLE =
      Parameter.of(
              "CHECKPOINT_TABLE",
              "_backfill_checkpoints",
              "ClickHouse table (`table` or `db.table`, in CLICKHOUSE_DATABASE) recording written"
                  + " pages and the rows the target refused, so a retried task or a new execution"
                  + " of the same unchanged source resumes and writes nothing twice; beside it"
                  + " `<name>_plans` pins each execution's snapshot for all its tasks. Created when"
                  + " missing. `none` turns both off (then a re-run writes every row again, and"
                  + " several tasks need PAGE_READER=rest).")
          .withFlag("checkpointTable");
  public static final Parameter RETRY_DEAD_LETTERS =
      Parameter.of(
              "RETRY_DEAD_LETTERS",
              "false",
              "Write again the rows earlier runs of the same source dead-lettered, even though the"
                  + " target table's definition has not changed since (when it has, they are"
                  + " retried anyway, as are rows no dead-letter sink kept). Needs the checkpoint"
                  + " table.")
          .withFlag("retryDeadLetters");
  public static final Parameter CREATE_TABLE =
      Parameter.of(
              "CREATE_TABLE",
              "false",
              "Create the ClickHouse table from the BigQuery schema when it is missing (the same"
                  + " type mapping as the column plan); --dryRun prints the statement.")
          .withFlag("createTable");
  public static final Parameter ORDER_BY =
      Parameter.of(
              "ORDER_BY",
              null,
              "ORDER BY of the table --createTable makes, e.g. `(service, event_time)`; default:"
                  + " the first REQUIRED TIMESTAMP, DATETIME or DATE field, else the first REQUIRED"
                  + " INT64 or STRING field, else `tuple()`.")
          .withFlag("orderBy");
  public static final Parameter DRY_RUN =
      Parameter.of(
              "DRY_RUN",
              "false",
              "Check parameters, both schemas and the type mapping, print the column plan, write"
                  + " nothing.")
          .withFlag("dryRun");
  public static final Parameter VERBOSE =
      Parameter.of(
              "VERBOSE",
              "false",
              "Also log the ClickHouse client's retries and the stack trace of a failure (for a"
                  + " bug report); without it a failure is one line.")
          .withFlag("verbose");
  public static final Parameter PROGRESS_INTERVAL_SECONDS =
      Parameter.of(
              "PROGRESS_INTERVAL_SECONDS",
              "5",
              "Seconds between progress log lines (a progress bar instead on a terminal).")
          .withFlag("progressIntervalSeconds");
  public static final Parameter TASK_INDEX =
      Parameter.of(
          "CLOUD_RUN_TASK_INDEX", "0", "This task's index; set by Cloud Run Jobs (0-based).");
  public static final Parameter TASK_COUNT =
      Parameter.of(
          "CLOUD_RUN_TASK_COUNT",
          "1",
          "Number of tasks sharing the rows; set by Cloud Run Jobs (`--tasks`).");

  /** Further flag names of a parameter: {@code --where} for ROW_RESTRICTION. */
  public static final Map<Parameter, List<String>> ALIASES =
      Map.of(ROW_RESTRICTION, List.of("where"));

  /** The template's ClickHouse options, then ours, in the order --help shows them. */
  public static final List<Parameter> ALL = all();

  private static List<Parameter> all() {
    List<Parameter> all =
        new ArrayList<>(
            List.of(
                INPUT_TABLE_SPEC,
                QUERY,
                USE_LEGACY_SQL,
                QUERY_LOCATION,
                QUERY_TEMP_DATASET,
                KMS_ENCRYPTION_KEY,
                OUTPUT_DEADLETTER_TABLE,
                OUTPUT_DEADLETTER_DATASET,
                JDBC_URL,
                CLICKHOUSE_URL,
                CLICKHOUSE_DATABASE));
    for (Parameter p : ClickHouseParameters.ALL) {
      if (p != ClickHouseParameters.URL && p != ClickHouseParameters.DATABASE) {
        all.add(p);
      }
    }
    all.addAll(
        List.of(
            PROJECT,
            BIGQUERY_ENDPOINT,
            BIGQUERY_STORAGE_ENDPOINT,
            BIGQUERY_MAX_ATTEMPTS,
            PAGE_READER,
            STREAMS_PER_TASK,
            ROW_RESTRICTION,
            PAGE_ROWS,
            PREFETCH_PAGES,
            CHECKPOINT_TABLE,
            RETRY_DEAD_LETTERS,
            CREATE_TABLE,
            ORDER_BY,
            DRY_RUN,
            VERBOSE,
            PROGRESS_INTERVAL_SECONDS,
            TASK_INDEX,
            TASK_COUNT,
            SecretManagerAccess.ENDPOINT));
    return List.copyOf(all);
  }
}
