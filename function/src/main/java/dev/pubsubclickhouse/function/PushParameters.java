package dev.pubsubclickhouse.function;

import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import dev.pubsubclickhouse.core.config.Parameter;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.messages.MessageParameters;
import java.util.ArrayList;
import java.util.List;

/** Every parameter of the push service: the table the README's configuration section lists. */
public final class PushParameters {
  private PushParameters() {}

  public static final Parameter DEAD_LETTER_TOPIC =
      Parameter.of(
          "DEAD_LETTER_TOPIC",
          null,
          "Pub/Sub topic (projects/P/topics/T) for messages that cannot be written; original data"
              + " and attributes plus errorMessage, failedAt, orderingKey (when it had one) and"
              + " deadLetterAdded (naming them).");
  public static final Parameter PUBSUB_SUBSCRIPTION =
      Parameter.of(
          "PUBSUB_SUBSCRIPTION",
          null,
          "Pull mode: a subscription (projects/P/subscriptions/S) the service pulls from (streaming"
              + " pull) instead of serving push requests; PORT then serves /livez, /healthz and"
              + " /metrics only, and POST / answers 404. See docs/pull.md.");
  public static final Parameter SHUTDOWN_GRACE_SECONDS =
      Parameter.of(
          "SHUTDOWN_GRACE_SECONDS",
          "25",
          "Pull mode: on SIGTERM the service stops pulling, writes the batches in flight, acks or"
              + " nacks every message it holds and exits within this many seconds (at least 5);"
              + " keep it below the pod's termination grace period. (A push service drains within"
              + " 9 s: Cloud Run's 10.)");
  public static final Parameter PUBSUB_ENDPOINT =
      MessageParameters.PUBSUB_ENDPOINT.withDescription(
          "Pub/Sub host:port override (emulator), plaintext, without credentials: the pulled"
              + " subscription, the dead-letter topic and the schema service.");
  public static final Parameter PUBSUB_EMULATOR_HOST =
      Parameter.of(
          "PUBSUB_EMULATOR_HOST",
          null,
          "Read as the client libraries read it: the emulator's host:port, used as PUBSUB_ENDPOINT"
              + " when that is unset.");
  public static final Parameter BATCH_MAX_ROWS =
      Parameter.of("BATCH_MAX_ROWS", "10000", "A batch closes at this many rows.");
  public static final Parameter BATCH_MAX_BYTES =
      Parameter.of("BATCH_MAX_BYTES", "16777216", "... or this many encoded bytes.");
  public static final Parameter BATCH_MAX_WAIT_MS =
      Parameter.of("BATCH_MAX_WAIT_MS", "1000", "... or when its oldest row has waited this long.");
  public static final Parameter BATCH_LINGER_MS =
      Parameter.of(
          "BATCH_LINGER_MS",
          "0",
          "A batch waits at least this long from its first message (fewer, larger INSERTs for"
              + " more latency); 0: it goes as soon as no INSERT into its table is in flight. At"
              + " most BATCH_MAX_WAIT_MS, and below ANSWER_TIMEOUT_MS.");
  public static final Parameter MAX_CONCURRENT_INSERTS =
      Parameter.of(
          "MAX_CONCURRENT_INSERTS",
          "2",
          "INSERTs in flight at once, whatever their tables; a second one into the same table"
              + " starts only for a full or overdue batch.");
  public static final Parameter MAX_INSERTS_PER_SECOND =
      Parameter.of(
          "MAX_INSERTS_PER_SECOND",
          "500",
          "Ceiling on batches (INSERTs) per second per instance; a batch holds one table's"
              + " messages.");
  public static final Parameter TABLE_MAX_INSERTS_PER_SECOND =
      Parameter.of(
          "TABLE_MAX_INSERTS_PER_SECOND",
          "500",
          "Ceiling on INSERTs (new parts) per second into each table from every instance"
              + " together, as ClickHouse counts them; each instance takes its share. 0: none.");
  public static final Parameter TABLE_WATCH_INTERVAL_MS =
      Parameter.of(
          "TABLE_WATCH_INTERVAL_MS",
          "2000",
          "How often each instance reads the parts, merges and new parts per second of each"
              + " table it writes from ClickHouse (4 times as often under part pressure) for flow"
              + " control; 0 turns flow control off.");
  public static final Parameter MAX_PENDING_BYTES =
      Parameter.of(
          "MAX_PENDING_BYTES",
          "67108864",
          "Memory requests in progress may hold: 4 bytes per body byte from the read to the"
              + " answer, and what reading the message takes as it takes it (decompressed data,"
              + " parsed rows); beyond it requests are answered 429 at once.");
  public static final Parameter MAX_PENDING_MESSAGES =
      Parameter.of(
          "MAX_PENDING_MESSAGES",
          "5000",
          "Requests that may wait; beyond it they get 429 at once.");
  public static final Parameter ANSWER_TIMEOUT_MS =
      Parameter.of(
          "ANSWER_TIMEOUT_MS",
          "50000",
          "A request not answered by then gets 503; keep it below the subscription's ack deadline."
              + " An INSERT attempt (or dead-letter write) ends by the last deadline of the"
              + " messages it carries, and is not retried after it.");
  public static final Parameter MAX_REQUEST_BYTES =
      Parameter.of(
          "MAX_REQUEST_BYTES",
          "14680064",
          "Larger request bodies get 413 (a 10 MB Pub/Sub message is about 13.4 MB wrapped).");
  public static final Parameter PUSH_UNWRAPPED =
      Parameter.of(
          "PUSH_UNWRAPPED",
          "false",
          "Treat every request as an unwrapped (no_wrapper) push; otherwise recognised by its"
              + " x-goog-pubsub-* headers.");
  public static final Parameter PUSH_AUDIENCE =
      Parameter.of(
          "PUSH_AUDIENCE",
          null,
          "When set, every push request must carry a Google-signed OIDC token for this audience"
              + " (the subscription's push audience, usually the service URL); else 401.");
  public static final Parameter PUSH_AUTH =
      Parameter.of(
          "PUSH_AUTH",
          null,
          "none: the service checks no push token, on purpose (Cloud Run's IAM, roles/run.invoker,"
              + " guards it, or a local run); silences the start-up warning that says so. Not"
              + " with PUSH_AUDIENCE.");
  public static final Parameter PUSH_SERVICE_ACCOUNT =
      Parameter.of(
          "PUSH_SERVICE_ACCOUNT",
          null,
          "With PUSH_AUDIENCE: only tokens of this service account (the subscription's push"
              + " identity) are admitted; others get 403. Required with PUSH_AUDIENCE, since"
              + " anyone can mint a Google-signed token for any audience.");
  public static final Parameter PUSH_ALLOW_ANY_SERVICE_ACCOUNT =
      Parameter.of(
          "PUSH_ALLOW_ANY_SERVICE_ACCOUNT",
          "false",
          "With PUSH_AUDIENCE and no PUSH_SERVICE_ACCOUNT: admit a token of any Google account"
              + " (otherwise the service refuses to start that way).");
  public static final Parameter PUSH_TOKEN_ISSUER =
      Parameter.of(
          "PUSH_TOKEN_ISSUER", "https://accounts.google.com", "Issuer the push token must name.");
  public static final Parameter PUSH_TOKEN_CERTS_URL =
      Parameter.of(
          "PUSH_TOKEN_CERTS_URL",
          "https://www.googleapis.com/oauth2/v3/certs",
          "Where the token signing keys (a JWK set) are published: https://, or http:// to this"
              + " machine.");
  public static final Parameter SUMMARY_INTERVAL_SECONDS =
      Parameter.of("SUMMARY_INTERVAL_SECONDS", "60", "One summary log line per interval.");
  public static final Parameter PORT = Parameter.of("PORT", "8080", "HTTP port.");
  public static final Parameter METRICS_PORT =
      Parameter.of(
          "METRICS_PORT",
          null,
          "Port of a second listener that serves only GET /metrics, for a Prometheus sidecar. With"
              + " PUSH_AUDIENCE set, /metrics is served only there (unset: no metrics endpoint; the"
              + " OTLP push still works); without, on PORT as well.");
  public static final Parameter GOOGLE_CLOUD_PROJECT =
      Parameter.of(
          "GOOGLE_CLOUD_PROJECT",
          null,
          "Google Cloud project: a log line written while a request is served names the request's"
              + " trace in it (logging.googleapis.com/trace), and metrics pushed to Google are"
              + " billed to it.");
  public static final Parameter OTEL_EXPORTER_OTLP_METRICS_ENDPOINT =
      Parameter.of(
          "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
          null,
          "Push the metrics over OTLP/HTTP to this URL as well, e.g."
              + " https://telemetry.googleapis.com/v1/metrics (Cloud Monitoring, no sidecar; called"
              + " with the service account's credentials, which need roles/monitoring.metricWriter"
              + " and roles/telemetry.metricsWriter); https://, or http:// to this machine (a"
              + " collector beside it); unset: GET /metrics only.");
  public static final Parameter OTEL_METRIC_EXPORT_INTERVAL =
      Parameter.of(
          "OTEL_METRIC_EXPORT_INTERVAL",
          "60000",
          "Milliseconds between two pushes of the metrics over OTLP.");
  public static final Parameter OTEL_RESOURCE_ATTRIBUTES =
      Parameter.of(
          "OTEL_RESOURCE_ATTRIBUTES",
          null,
          "Resource attributes of the metrics pushed over OTLP, k=v,k=v; Cloud Monitoring takes"
              + " cloud.region as their location. Defaults: service.name=pubsub-clickhouse-push,"
              + " service.instance.id a random id per process, gcp.project_id=GOOGLE_CLOUD_PROJECT.");

  /** Refused when false: see {@link PushConfig}. */
  public static final Parameter INSERT_DISTRIBUTED_SYNC =
      ClickHouseParameters.INSERT_DISTRIBUTED_SYNC.withDescription(
          "ClickHouse insert_distributed_sync (Distributed tables): a message is acknowledged once"
              + " its rows are on their shards. false is refused at start: it would acknowledge"
              + " rows only queued on the server that took the INSERT.");

  /** Some settings are refused: see {@link PushConfig}. */
  public static final Parameter CLICKHOUSE_SETTINGS =
      ClickHouseParameters.SETTINGS.withDescription(
          "Further ClickHouse settings for every INSERT: k=v,k=v. Refused at start: the settings"
              + " the service sets itself (InsertOptions.SETTINGS_THE_SERVICE_OWNS: those that"
              + " decide when rows count as written, such as insert_distributed_sync, async_insert,"
              + " insert_deduplication_token, and how rows are read, every input_format_*), and"
              + " the HTTP interface's own parameters (InsertOptions.HTTP_REQUEST_PARAMETERS:"
              + " query, user, password, database, param_*, query_id, session_id, default_format,"
              + " quota_key and the like). A name not in the server's system.settings, or a value"
              + " ClickHouse does not take, keeps the service unready (503, /healthz says which).");

  public static final List<Parameter> ALL = all();

  private static List<Parameter> all() {
    List<Parameter> all = new ArrayList<>();
    for (Parameter shared : ClickHouseParameters.ALL) {
      all.add(
          shared == ClickHouseParameters.INSERT_DISTRIBUTED_SYNC
              ? INSERT_DISTRIBUTED_SYNC
              : shared == ClickHouseParameters.SETTINGS ? CLICKHOUSE_SETTINGS : shared);
    }
    all.addAll(
        List.of(
            DEAD_LETTER_TOPIC,
            PUBSUB_ENDPOINT,
            PUBSUB_EMULATOR_HOST,
            PUBSUB_SUBSCRIPTION,
            SHUTDOWN_GRACE_SECONDS,
            MessageParameters.SCHEMA_DENIED_GRACE_SECONDS,
            MessageParameters.SCHEMA_LOOKUPS_PER_MINUTE,
            BATCH_MAX_ROWS,
            BATCH_MAX_BYTES,
            BATCH_MAX_WAIT_MS,
            BATCH_LINGER_MS,
            MAX_CONCURRENT_INSERTS,
            MAX_INSERTS_PER_SECOND,
            TABLE_MAX_INSERTS_PER_SECOND,
            TABLE_WATCH_INTERVAL_MS,
            MAX_PENDING_BYTES,
            MAX_PENDING_MESSAGES,
            ANSWER_TIMEOUT_MS,
            MAX_REQUEST_BYTES,
            MessageParameters.MAX_DECOMPRESSED_BYTES,
            PUSH_UNWRAPPED,
            PUSH_AUDIENCE,
            PUSH_AUTH,
            PUSH_SERVICE_ACCOUNT,
            PUSH_ALLOW_ANY_SERVICE_ACCOUNT,
            PUSH_TOKEN_ISSUER,
            PUSH_TOKEN_CERTS_URL,
            SUMMARY_INTERVAL_SECONDS,
            PORT,
            METRICS_PORT,
            SecretManagerAccess.ENDPOINT,
            MessageParameters.CLICKHOUSE_TABLE_ATTRIBUTE,
            MessageParameters.CLICKHOUSE_TABLES,
            MessageParameters.SCHEMA_EVOLUTION,
            MessageParameters.SCHEMA_EVOLUTION_FALLBACK_TYPE,
            MessageParameters.SCHEMA_EVOLUTION_MAX_NEW_COLUMNS,
            MessageParameters.SCHEMA_EVOLUTION_MAX_TABLE_COLUMNS,
            MessageParameters.CLICKHOUSE_CLUSTER,
            MessageParameters.UNKNOWN_FIELDS_COLUMN,
            MessageParameters.COLUMN_MAPPING,
            MessageParameters.COLUMN_MAPPING_FILE,
            MessageParameters.PAYLOAD_FORMAT,
            MessageParameters.CDC_TABLES,
            MessageParameters.CDC_TRUNCATE,
            MessageParameters.CDC_TRUNCATE_MARKS_TABLE,
            MessageParameters.CDC_VERSION_EPOCH,
            GOOGLE_CLOUD_PROJECT,
            OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
            OTEL_METRIC_EXPORT_INTERVAL,
            OTEL_RESOURCE_ATTRIBUTES));
    return List.copyOf(all);
  }
}
