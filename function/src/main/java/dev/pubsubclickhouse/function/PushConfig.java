package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.PushParameters.*;
import static dev.pubsubclickhouse.messages.MessageParameters.*;

import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.config.Parameter;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.core.insert.InsertOptions;
import dev.pubsubclickhouse.function.auth.PushAuthenticator;
import dev.pubsubclickhouse.function.flow.FlowPolicy;
import dev.pubsubclickhouse.function.ingest.BatchPolicy;
import dev.pubsubclickhouse.function.observability.MetricsExport;
import dev.pubsubclickhouse.function.pull.PullSettings;
import dev.pubsubclickhouse.function.pull.ShutdownTimeline;
import dev.pubsubclickhouse.messages.payload.SchemaLookups;
import dev.pubsubclickhouse.messages.tables.TableMapping;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The push service's configuration, read and checked at start.
 *
 * @param authenticator the push token check, or empty for none
 * @param unauthenticatedByIntent no token check, and PUSH_AUTH=none says that is intended
 * @param metricsPort where a listener of its own serves {@code GET /metrics}, if anywhere
 * @param pull the subscription to pull from (pull mode), or empty to serve push requests
 */
public record PushConfig(
    ClickHouseConfig clickHouse,
    Optional<String> deadLetterTopic,
    Optional<String> pubsubEndpoint,
    SchemaLookups schemaLookups,
    BatchPolicy batch,
    FlowPolicy flow,
    int maxRequestBytes,
    int maxDecompressedBytes,
    boolean pushUnwrapped,
    Optional<PushAuthenticator> authenticator,
    boolean unauthenticatedByIntent,
    Duration summaryInterval,
    int port,
    Optional<Integer> metricsPort,
    TableMapping tables,
    Optional<String> googleProject,
    Optional<MetricsExport> metricsExport,
    Optional<PullSettings> pull) {

  public static PushConfig read(Map<String, String> given) {
    Map<String, String> environment = withChangeTablesDefault(given);
    ConfigReader config = new ConfigReader(environment);
    ClickHouseConfig clickHouse =
        ClickHouseConfig.read(config, new SecretManagerAccess(environment));
    refuseEarlyAcknowledgement(config, clickHouse.insertOptions());
    Optional<String> topic = config.optional(DEAD_LETTER_TOPIC);
    topic.ifPresent(
        name -> {
          if (!name.matches("projects/[^/]+/topics/[^/]+")) {
            throw new ConfigurationException(
                DEAD_LETTER_TOPIC, "expected projects/PROJECT/topics/TOPIC, got '" + name + "'");
          }
        });
    int batchMaxRows = config.integer(BATCH_MAX_ROWS, 1, 10_000_000);
    if (batchMaxRows > clickHouse.insertOptions().maxInsertBlockSize()) {
      // One batch must be one block: a failure then leaves none of it, or (a failed view) all of
      // it, in the table, never a part.
      throw new ConfigurationException(
          BATCH_MAX_ROWS,
          "must not exceed MAX_INSERT_BLOCK_SIZE ("
              + clickHouse.insertOptions().maxInsertBlockSize()
              + "), so that one batch is one block");
    }
    long maxWaitMillis = config.longValue(BATCH_MAX_WAIT_MS, 0, 600_000);
    long lingerMillis = config.longValue(BATCH_LINGER_MS, 0, 60_000);
    long answerMillis = config.longValue(ANSWER_TIMEOUT_MS, 100, 600_000);
    if (lingerMillis > maxWaitMillis) {
      // The batcher sends an overdue batch whatever its linger: the linger would silently shrink.
      throw new ConfigurationException(
          BATCH_LINGER_MS,
          "must not exceed BATCH_MAX_WAIT_MS ("
              + maxWaitMillis
              + "), which sends a batch whatever its linger; got "
              + lingerMillis);
    }
    if (lingerMillis > 0 && lingerMillis >= answerMillis) {
      throw new ConfigurationException(
          BATCH_LINGER_MS,
          "must be below ANSWER_TIMEOUT_MS ("
              + answerMillis
              + "), or messages are answered 503 while their batch lingers; got "
              + lingerMillis);
    }
    BatchPolicy batch =
        BatchPolicy.builder()
            .maxRows(batchMaxRows)
            .maxBytes(config.longValue(BATCH_MAX_BYTES, 1024, 1L << 30))
            .maxWait(Duration.ofMillis(maxWaitMillis))
            .linger(Duration.ofMillis(lingerMillis))
            .maxConcurrentInserts(config.integer(MAX_CONCURRENT_INSERTS, 1, 64))
            .maxInsertsPerSecond(config.integer(MAX_INSERTS_PER_SECOND, 1, 100_000))
            .maxPendingBytes(config.longValue(MAX_PENDING_BYTES, 1 << 20, 1L << 40))
            .maxPendingMessages(config.integer(MAX_PENDING_MESSAGES, 1, 1_000_000))
            .answerTimeout(Duration.ofMillis(answerMillis))
            .build();
    long watchMillis = config.longValue(TABLE_WATCH_INTERVAL_MS, 0, 3_600_000);
    if (watchMillis > 0 && watchMillis < 100) {
      throw new ConfigurationException(
          TABLE_WATCH_INTERVAL_MS, "expected 0 (off) or at least 100, got " + watchMillis);
    }
    int port = config.integer(PORT, 1, 65_535);
    FlowPolicy flow =
        new FlowPolicy(
            config.integer(TABLE_MAX_INSERTS_PER_SECOND, 0, 1_000_000),
            Duration.ofMillis(watchMillis));
    return new Builder()
        .clickHouse(clickHouse)
        .deadLetterTopic(topic)
        .pubsubEndpoint(pubsubEndpoint(config))
        .schemaLookups(
            new SchemaLookups(
                Duration.ofSeconds(config.longValue(SCHEMA_DENIED_GRACE_SECONDS, 0, 86_400)),
                config.integer(SCHEMA_LOOKUPS_PER_MINUTE, 1, 100_000)))
        .batch(batch)
        .flow(flow)
        .maxRequestBytes(config.integer(MAX_REQUEST_BYTES, 1024, 1 << 30))
        .maxDecompressedBytes(config.integer(MAX_DECOMPRESSED_BYTES, 1024, 1 << 30))
        .pushUnwrapped(config.bool(PUSH_UNWRAPPED))
        .authenticator(authenticator(config))
        .unauthenticatedByIntent(unauthenticatedByIntent(config))
        .summaryInterval(Duration.ofSeconds(config.longValue(SUMMARY_INTERVAL_SECONDS, 1, 86_400)))
        .port(port)
        .metricsPort(metricsPort(config, port))
        .tables(TableMapping.read(config, clickHouse.table(), clickHouse.deadLetterTable()))
        .googleProject(config.optional(GOOGLE_CLOUD_PROJECT))
        .metricsExport(metricsExport(config))
        .pull(pull(config))
        .build();
  }

  /**
   * With PAYLOAD_FORMAT=debezium, CLICKHOUSE_TABLE is optional: the first CDC_TABLES target stands
   * for it (the table whose writer takes the dead letters and the messages that carry no change).
   */
  private static Map<String, String> withChangeTablesDefault(Map<String, String> environment) {
    String table = environment.get(ClickHouseParameters.TABLE.env());
    String tables = environment.get(CDC_TABLES.env());
    if ((table != null && !table.isBlank())
        || tables == null
        || !"debezium"
            .equalsIgnoreCase(environment.getOrDefault(PAYLOAD_FORMAT.env(), "").trim())) {
      return environment;
    }
    String first = tables.split(",")[0];
    int equals = first.indexOf('=');
    if (equals < 0) {
      return environment; // CDC_TABLES' own check names the problem
    }
    Map<String, String> completed = new HashMap<>(environment);
    completed.put(ClickHouseParameters.TABLE.env(), first.substring(equals + 1).trim());
    return completed;
  }

  /**
   * {@code host:port}, as gRPC takes it in plaintext: anything else failed later, blamed on
   * ClickHouse or only when the first message with a schema came.
   */
  private static Optional<String> pubsubEndpoint(ConfigReader config) {
    Parameter named =
        config.optional(PushParameters.PUBSUB_ENDPOINT).isPresent()
            ? PushParameters.PUBSUB_ENDPOINT
            : PUBSUB_EMULATOR_HOST;
    Optional<String> endpoint = config.optional(named);
    endpoint.ifPresent(
        value -> {
          Matcher hostPort =
              Pattern.compile("(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+):(\\d{1,5})").matcher(value);
          if (!hostPort.matches()
              || Integer.parseInt(hostPort.group(2)) < 1
              || Integer.parseInt(hostPort.group(2)) > 65_535) {
            throw new ConfigurationException(
                named, "expected host:port (plaintext, e.g. 127.0.0.1:8085), got '" + value + "'");
          }
        });
    return endpoint;
  }

  /** PUBSUB_SUBSCRIPTION, if set, and how long a pulling service may take to stop. */
  private static Optional<PullSettings> pull(ConfigReader config) {
    Optional<String> subscription = config.optional(PUBSUB_SUBSCRIPTION);
    if (subscription.isEmpty()) {
      return Optional.empty();
    }
    if (!subscription.get().matches("projects/[^/]+/subscriptions/[^/]+")) {
      throw new ConfigurationException(
          PUBSUB_SUBSCRIPTION,
          "expected projects/PROJECT/subscriptions/SUBSCRIPTION, got '" + subscription.get() + "'");
    }
    return Optional.of(
        new PullSettings(
            subscription.get(),
            Duration.ofSeconds(
                config.longValue(
                    SHUTDOWN_GRACE_SECONDS, ShutdownTimeline.SHORTEST_GRACE.toSeconds(), 3_600))));
  }

  private static Optional<MetricsExport> metricsExport(ConfigReader config) {
    if (config.optional(OTEL_EXPORTER_OTLP_METRICS_ENDPOINT).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new MetricsExport(
            config.secureUrl(OTEL_EXPORTER_OTLP_METRICS_ENDPOINT),
            Duration.ofMillis(config.longValue(OTEL_METRIC_EXPORT_INTERVAL, 1_000, 3_600_000)),
            MetricsExport.resourceAttributes(
                config.keyValues(OTEL_RESOURCE_ATTRIBUTES),
                config.optional(GOOGLE_CLOUD_PROJECT),
                UUID.randomUUID().toString())));
  }

  /**
   * A 2xx tells Pub/Sub to forget a message, so it waits until ClickHouse has the rows where they
   * belong. With {@code insert_distributed_sync=0} a Distributed table answers once the rows are
   * queued on the server that took the INSERT, before they are on their shards. (The settings that
   * would do the same through CLICKHOUSE_SETTINGS are refused by core's InsertOptions, for the
   * backfill job too.)
   */
  private static void refuseEarlyAcknowledgement(ConfigReader config, InsertOptions options) {
    if (!options.distributedSync()) {
      throw config.problem(
          INSERT_DISTRIBUTED_SYNC,
          "false is refused: a Distributed table would answer once the rows are queued on the"
              + " server that took the INSERT, before they are on their shards, and the messages"
              + " would be acknowledged; leave it true");
    }
  }

  private static Optional<Integer> metricsPort(ConfigReader config, int port) {
    Optional<Integer> metricsPort = config.optionalInteger(METRICS_PORT, 1, 65_535);
    if (metricsPort.equals(Optional.of(port))) {
      throw config.problem(METRICS_PORT, "must differ from PORT (" + port + ")");
    }
    return metricsPort;
  }

  /**
   * Whether the push port serves {@code GET /metrics}: only without a token check, since it asks no
   * token for it.
   */
  public boolean metricsOnPushPort() {
    return authenticator.isEmpty();
  }

  /** PUSH_AUTH=none, which only a service without PUSH_AUDIENCE may say. */
  private static boolean unauthenticatedByIntent(ConfigReader config) {
    Optional<String> auth = config.optional(PUSH_AUTH);
    if (auth.isEmpty()) {
      return false;
    }
    if (!auth.get().equals("none")) {
      throw config.problem(PUSH_AUTH, "expected none (or unset), got '" + auth.get() + "'");
    }
    if (config.optional(PUSH_AUDIENCE).isPresent()) {
      throw config.problem(
          PUSH_AUTH, "none contradicts PUSH_AUDIENCE, which turns the token check on; set one");
    }
    return true;
  }

  /**
   * The one line the service logs at start when it checks no push token and was not told that is
   * intended: on Cloud Run IAM guards it, anywhere else nothing does. A pulling service takes no
   * push (POST / answers 404), so it has no token to check.
   */
  public Optional<String> unauthenticatedWarning() {
    if (authenticator.isPresent() || unauthenticatedByIntent || pull.isPresent()) {
      return Optional.empty();
    }
    return Optional.of(
        "push requests are not authenticated: PUSH_AUDIENCE is not set, so only Cloud Run's IAM"
            + " (roles/run.invoker) guards this service, and anywhere else anyone who reaches it"
            + " can write messages; set PUSH_AUDIENCE and PUSH_SERVICE_ACCOUNT to check the push"
            + " token, or PUSH_AUTH=none to say this is intended");
  }

  private static Optional<PushAuthenticator> authenticator(ConfigReader config) {
    Optional<String> audience = config.optional(PUSH_AUDIENCE);
    Optional<String> account = config.optional(PUSH_SERVICE_ACCOUNT);
    if (audience.isEmpty()) {
      if (account.isPresent()) {
        throw new ConfigurationException(PUSH_SERVICE_ACCOUNT, "needs PUSH_AUDIENCE as well");
      }
      return Optional.empty();
    }
    if (account.isEmpty() && !config.bool(PUSH_ALLOW_ANY_SERVICE_ACCOUNT)) {
      throw new ConfigurationException(
          PUSH_SERVICE_ACCOUNT,
          "is required with PUSH_AUDIENCE: without it any Google account's token for that audience"
              + " is admitted (set PUSH_ALLOW_ANY_SERVICE_ACCOUNT=true if that is what you want)");
    }
    return Optional.of(
        new PushAuthenticator(
            audience.get(),
            config.required(PUSH_TOKEN_ISSUER),
            account.orElse(null),
            config.secureUrl(PUSH_TOKEN_CERTS_URL).toString()));
  }

  /** Names each part of a {@link PushConfig} as {@link #read} sets it. */
  private static final class Builder {
    private ClickHouseConfig clickHouse;
    private Optional<String> deadLetterTopic;
    private Optional<String> pubsubEndpoint;
    private SchemaLookups schemaLookups;
    private BatchPolicy batch;
    private FlowPolicy flow;
    private int maxRequestBytes;
    private int maxDecompressedBytes;
    private boolean pushUnwrapped;
    private Optional<PushAuthenticator> authenticator;
    private boolean unauthenticatedByIntent;
    private Duration summaryInterval;
    private int port;
    private Optional<Integer> metricsPort;
    private TableMapping tables;
    private Optional<String> googleProject;
    private Optional<MetricsExport> metricsExport;
    private Optional<PullSettings> pull;

    Builder clickHouse(ClickHouseConfig clickHouse) {
      this.clickHouse = clickHouse;
      return this;
    }

    Builder deadLetterTopic(Optional<String> topic) {
      this.deadLetterTopic = topic;
      return this;
    }

    Builder pubsubEndpoint(Optional<String> endpoint) {
      this.pubsubEndpoint = endpoint;
      return this;
    }

    Builder schemaLookups(SchemaLookups lookups) {
      this.schemaLookups = lookups;
      return this;
    }

    Builder batch(BatchPolicy batch) {
      this.batch = batch;
      return this;
    }

    Builder flow(FlowPolicy flow) {
      this.flow = flow;
      return this;
    }

    Builder maxRequestBytes(int bytes) {
      this.maxRequestBytes = bytes;
      return this;
    }

    Builder maxDecompressedBytes(int bytes) {
      this.maxDecompressedBytes = bytes;
      return this;
    }

    Builder pushUnwrapped(boolean unwrapped) {
      this.pushUnwrapped = unwrapped;
      return this;
    }

    Builder authenticator(Optional<PushAuthenticator> authenticator) {
      this.authenticator = authenticator;
      return this;
    }

    Builder unauthenticatedByIntent(boolean byIntent) {
      this.unauthenticatedByIntent = byIntent;
      return this;
    }

    Builder summaryInterval(Duration interval) {
      this.summaryInterval = interval;
      return this;
    }

    Builder port(int port) {
      this.port = port;
      return this;
    }

    Builder metricsPort(Optional<Integer> port) {
      this.metricsPort = port;
      return this;
    }

    Builder tables(TableMapping tables) {
      this.tables = tables;
      return this;
    }

    Builder googleProject(Optional<String> project) {
      this.googleProject = project;
      return this;
    }

    Builder metricsExport(Optional<MetricsExport> export) {
      this.metricsExport = export;
      return this;
    }

    Builder pull(Optional<PullSettings> pull) {
      this.pull = pull;
      return this;
    }

    PushConfig build() {
      return new PushConfig(
          clickHouse,
          deadLetterTopic,
          pubsubEndpoint,
          schemaLookups,
          batch,
          flow,
          maxRequestBytes,
          maxDecompressedBytes,
          pushUnwrapped,
          authenticator,
          unauthenticatedByIntent,
          summaryInterval,
          port,
          metricsPort,
          tables,
          googleProject,
          metricsExport,
          pull);
    }
  }
}
