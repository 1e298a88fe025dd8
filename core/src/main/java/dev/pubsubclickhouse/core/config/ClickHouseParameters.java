package dev.pubsubclickhouse.core.config;

import java.util.List;

/**
 * The parameters both deployables share: where ClickHouse is, how to log in, the tables, and the
 * INSERT settings. Flags carry the Dataflow ClickHouse templates' names.
 */
public final class ClickHouseParameters {
  private ClickHouseParameters() {}

  public static final Parameter URL =
      Parameter.of("CLICKHOUSE_URL", null, "ClickHouse HTTP(S) endpoint, http(s)://host:port.");
  public static final Parameter CA_CERT =
      Parameter.of(
          "CLICKHOUSE_CA_CERT",
          null,
          "PEM file of the CA certificate (or the self-signed server certificate) to trust for an"
              + " https:// CLICKHOUSE_URL; unset: the JVM's trust store.");
  public static final Parameter DATABASE =
      Parameter.of("CLICKHOUSE_DATABASE", "default", "Database of the target table.");
  public static final Parameter TABLE =
      Parameter.of("CLICKHOUSE_TABLE", null, "Target table (`table` or `db.table`).")
          .withFlag("clickHouseTable");
  public static final Parameter USER =
      Parameter.of("CLICKHOUSE_USER", "default", "ClickHouse user.").withFlag("clickHouseUsername");
  public static final Parameter PASSWORD =
      Parameter.of(
              "CLICKHOUSE_PASSWORD", null, "ClickHouse password (local use; prefer the secret).")
          .withFlag("clickHousePassword")
          .asSecret();
  public static final Parameter PASSWORD_SECRET =
      Parameter.of(
          "CLICKHOUSE_PASSWORD_SECRET",
          null,
          "Secret Manager version holding the password: projects/P/secrets/S/versions/V.");
  public static final Parameter DEAD_LETTER_TABLE =
      Parameter.of(
          "CLICKHOUSE_DEAD_LETTER_TABLE",
          null,
          "Dead-letter table (`table` or `db.table`) with raw_message, error_message,"
              + " stack_trace, failed_at.");
  public static final Parameter CREATE_DEAD_LETTER_TABLE =
      Parameter.of(
          "CREATE_DEAD_LETTER_TABLE",
          "false",
          "Create the dead-letter table at start when it is missing.");
  public static final Parameter MAX_INSERT_BLOCK_SIZE =
      Parameter.of("MAX_INSERT_BLOCK_SIZE", "1000000", "ClickHouse max_insert_block_size.")
          .withFlag("maxInsertBlockSize");
  public static final Parameter MAX_RETRIES =
      Parameter.of("MAX_RETRIES", "5", "Retries of an INSERT after a transient failure.")
          .withFlag("maxRetries");
  public static final Parameter INSERT_DEDUPLICATE =
      Parameter.of("INSERT_DEDUPLICATE", "true", "ClickHouse insert_deduplicate.")
          .withFlag("insertDeduplicate");
  public static final Parameter INSERT_QUORUM =
      Parameter.of("INSERT_QUORUM", null, "ClickHouse insert_quorum (replicated tables).")
          .withFlag("insertQuorum");
  public static final Parameter INSERT_DISTRIBUTED_SYNC =
      Parameter.of(
              "INSERT_DISTRIBUTED_SYNC",
              "true",
              "ClickHouse insert_distributed_sync (Distributed tables).")
          .withFlag("insertDistributedSync");
  public static final Parameter ASYNC_INSERT =
      Parameter.of(
          "ASYNC_INSERT",
          "false",
          "Send async_insert=1, wait_for_async_insert=1 so ClickHouse also merges inserts across"
              + " instances.");
  public static final Parameter SETTINGS =
      Parameter.of(
          "CLICKHOUSE_SETTINGS",
          null,
          "Further ClickHouse settings for every INSERT: k=v,k=v. Settings the service sets"
              + " itself, or that what a 2xx means depends on (async_insert,"
              + " insert_deduplication_token, materialized_views_ignore_errors, input_format_*"
              + " and the like), are refused at start.");
  public static final Parameter INSERT_TIMEOUT_MS =
      Parameter.of("INSERT_TIMEOUT_MS", "30000", "How long one INSERT attempt may take.");

  public static final List<Parameter> ALL =
      List.of(
          URL,
          CA_CERT,
          DATABASE,
          TABLE,
          USER,
          PASSWORD,
          PASSWORD_SECRET,
          DEAD_LETTER_TABLE,
          CREATE_DEAD_LETTER_TABLE,
          MAX_INSERT_BLOCK_SIZE,
          MAX_RETRIES,
          INSERT_DEDUPLICATE,
          INSERT_QUORUM,
          INSERT_DISTRIBUTED_SYNC,
          ASYNC_INSERT,
          SETTINGS,
          INSERT_TIMEOUT_MS);
}
