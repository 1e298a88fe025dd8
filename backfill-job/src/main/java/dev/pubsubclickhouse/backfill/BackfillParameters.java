package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import dev.pubsubclickhouse.core.config.Parameter;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import java.util.ArrayList;
import java.util.List;

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
                  + " when missing. Unset: `<input table>_error_records` for a table source, none"
                  + " for a query. `none` turns it off.")
          .withFlag("outputDeadletterTable");
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
                  + " GOOGLE_APPLICATION_CREDENTIALS is set.")
          .withFlag("bigQueryEndpoint");
  public static final Parameter PAGE_ROWS =
      Parameter.of(
              "PAGE_ROWS",
              "50000",
              "Rows asked for per BigQuery page (tabledata.list maxResults); one INSERT per page.")
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
              "stream",
              "`stream`: parse tabledata.list pages with a streaming JSON reader (fast); `client`:"
                  + " through the BigQuery client library's own parser (slower reference path).")
          .withFlag("pageReader");
  public static final Parameter CHECKPOINT_TABLE =
      Parameter.of(
              "CHECKPOINT_TABLE",
              "_backfill_checkpoints",
              "ClickHouse table (`table` or `db.table`, in CLICKHOUSE_DATABASE) recording written"
                  + " pages so a re-run resumes; created when missing. `none` turns it off.")
          .withFlag("checkpointTable");
  public static final Parameter DRY_RUN =
      Parameter.of(
              "DRY_RUN",
              "false",
              "Check parameters, both schemas and the type mapping, print the column plan, write"
                  + " nothing.")
          .withFlag("dryRun");
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
            PAGE_ROWS,
            PREFETCH_PAGES,
            PAGE_READER,
            CHECKPOINT_TABLE,
            DRY_RUN,
            PROGRESS_INTERVAL_SECONDS,
            TASK_INDEX,
            TASK_COUNT,
            SecretManagerAccess.ENDPOINT));
    return List.copyOf(all);
  }
}
