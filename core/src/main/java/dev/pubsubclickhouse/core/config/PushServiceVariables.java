package dev.pubsubclickhouse.core.config;

import java.util.Set;

/**
 * Every environment variable the push service reads. The backfill and replay often run with the
 * service's settings in their environment, so none of these is called a misspelling of theirs. The
 * push service's tests keep this equal to its parameters.
 */
public final class PushServiceVariables {
  public static final Set<String> NAMES =
      Set.of(
          "ANSWER_TIMEOUT_MS",
          "ASYNC_INSERT",
          "BATCH_LINGER_MS",
          "BATCH_MAX_BYTES",
          "BATCH_MAX_ROWS",
          "BATCH_MAX_WAIT_MS",
          "CDC_TABLES",
          "CDC_TRUNCATE",
          "CDC_TRUNCATE_MARKS_TABLE",
          "CDC_VERSION_EPOCH",
          "CLICKHOUSE_CA_CERT",
          "CLICKHOUSE_CLUSTER",
          "CLICKHOUSE_DATABASE",
          "CLICKHOUSE_DEAD_LETTER_TABLE",
          "CLICKHOUSE_PASSWORD",
          "CLICKHOUSE_PASSWORD_SECRET",
          "CLICKHOUSE_SETTINGS",
          "CLICKHOUSE_TABLE",
          "CLICKHOUSE_TABLES",
          "CLICKHOUSE_TABLE_ATTRIBUTE",
          "CLICKHOUSE_URL",
          "CLICKHOUSE_USER",
          "COLUMN_MAPPING",
          "COLUMN_MAPPING_FILE",
          "CREATE_DEAD_LETTER_TABLE",
          "DEAD_LETTER_TOPIC",
          "GOOGLE_CLOUD_PROJECT",
          "INSERT_DEDUPLICATE",
          "INSERT_DISTRIBUTED_SYNC",
          "INSERT_QUORUM",
          "INSERT_TIMEOUT_MS",
          "MAX_CONCURRENT_INSERTS",
          "MAX_DECOMPRESSED_BYTES",
          "MAX_INSERTS_PER_SECOND",
          "MAX_INSERT_BLOCK_SIZE",
          "MAX_PENDING_BYTES",
          "MAX_PENDING_MESSAGES",
          "MAX_REQUEST_BYTES",
          "MAX_RETRIES",
          "METRICS_PORT",
          "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
          "OTEL_METRIC_EXPORT_INTERVAL",
          "OTEL_RESOURCE_ATTRIBUTES",
          "PAYLOAD_FORMAT",
          "PORT",
          "PUBSUB_EMULATOR_HOST",
          "PUBSUB_ENDPOINT",
          "PUBSUB_SUBSCRIPTION",
          "PUSH_ALLOW_ANY_SERVICE_ACCOUNT",
          "PUSH_AUDIENCE",
          "PUSH_AUTH",
          "PUSH_SERVICE_ACCOUNT",
          "PUSH_TOKEN_CERTS_URL",
          "PUSH_TOKEN_ISSUER",
          "PUSH_UNWRAPPED",
          "SCHEMA_DENIED_GRACE_SECONDS",
          "SCHEMA_EVOLUTION",
          "SCHEMA_EVOLUTION_FALLBACK_TYPE",
          "SCHEMA_EVOLUTION_MAX_NEW_COLUMNS",
          "SCHEMA_EVOLUTION_MAX_TABLE_COLUMNS",
          "SCHEMA_LOOKUPS_PER_MINUTE",
          "SECRET_MANAGER_ENDPOINT",
          "SHUTDOWN_GRACE_SECONDS",
          "SUMMARY_INTERVAL_SECONDS",
          "TABLE_MAX_INSERTS_PER_SECOND",
          "TABLE_WATCH_INTERVAL_MS",
          "UNKNOWN_FIELDS_COLUMN");

  private PushServiceVariables() {}
}
