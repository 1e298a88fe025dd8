package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.PushParameters.*;

import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.core.insert.InsertOptions;
import dev.pubsubclickhouse.function.auth.PushAuthenticator;
import dev.pubsubclickhouse.function.ingest.BatchPolicy;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The push service's configuration, read and checked at start. */
public record PushConfig(
    ClickHouseConfig clickHouse,
    Optional<String> deadLetterTopic,
    Optional<String> pubsubEndpoint,
    BatchPolicy batch,
    int maxRequestBytes,
    int maxDecompressedBytes,
    boolean pushUnwrapped,
    Optional<PushAuthenticator> authenticator,
    Duration summaryInterval,
    int port) {

  public static PushConfig read(Map<String, String> environment) {
    ConfigReader config = new ConfigReader(environment);
    ClickHouseConfig clickHouse =
        ClickHouseConfig.read(config, new SecretManagerAccess(environment));
    refuseEarlyAcknowledgement(clickHouse.insertOptions());
    Optional<String> topic = config.optional(DEAD_LETTER_TOPIC);
    topic.ifPresent(
        name -> {
          if (!name.matches("projects/[^/]+/topics/[^/]+")) {
            throw new ConfigurationException(
                DEAD_LETTER_TOPIC, "expected projects/PROJECT/topics/TOPIC, got '" + name + "'");
          }
        });
    BatchPolicy batch =
        new BatchPolicy(
            config.integer(BATCH_MAX_ROWS, 1, 10_000_000),
            config.longValue(BATCH_MAX_BYTES, 1024, 1L << 30),
            Duration.ofMillis(config.longValue(BATCH_MAX_WAIT_MS, 0, 600_000)),
            Duration.ofMillis(config.longValue(BATCH_LINGER_MS, 0, 60_000)),
            config.integer(MAX_CONCURRENT_INSERTS, 1, 64),
            config.integer(MAX_INSERTS_PER_SECOND, 1, 100_000),
            config.longValue(MAX_PENDING_BYTES, 1 << 20, 1L << 40),
            config.integer(MAX_PENDING_MESSAGES, 1, 1_000_000),
            Duration.ofMillis(config.longValue(ANSWER_TIMEOUT_MS, 100, 600_000)));
    return new PushConfig(
        clickHouse,
        topic,
        config.optional(PUBSUB_ENDPOINT),
        batch,
        config.integer(MAX_REQUEST_BYTES, 1024, 1 << 30),
        config.integer(MAX_DECOMPRESSED_BYTES, 1024, 1 << 30),
        config.bool(PUSH_UNWRAPPED),
        authenticator(config),
        Duration.ofSeconds(config.longValue(SUMMARY_INTERVAL_SECONDS, 1, 86_400)),
        config.integer(PORT, 1, 65_535));
  }

  /**
   * A 2xx tells Pub/Sub to forget a message, so it waits until ClickHouse has the rows where they
   * belong. With {@code insert_distributed_sync=0} a Distributed table answers once the rows are
   * queued on the server that took the INSERT, before they are on their shards; {@code
   * async_insert} without waiting answers before the rows are written; a fixed deduplication token
   * makes every later INSERT a "duplicate". None of these can be configured.
   */
  private static void refuseEarlyAcknowledgement(InsertOptions options) {
    if (!options.distributedSync()) {
      throw new ConfigurationException(
          INSERT_DISTRIBUTED_SYNC,
          "false is refused: a Distributed table would answer once the rows are queued on the"
              + " server that took the INSERT, before they are on their shards, and the messages"
              + " would be acknowledged; leave it true");
    }
    for (String name : options.extraSettings().keySet()) {
      String instead = DECIDE_WHEN_ROWS_ARE_WRITTEN.get(name.toLowerCase(Locale.ROOT));
      if (instead != null) {
        throw new ConfigurationException(
            CLICKHOUSE_SETTINGS,
            name + " is refused here: it decides when rows count as written; " + instead);
      }
    }
  }

  private static final Map<String, String> DECIDE_WHEN_ROWS_ARE_WRITTEN =
      Map.of(
          "insert_distributed_sync", "see INSERT_DISTRIBUTED_SYNC",
          "distributed_foreground_insert", "see INSERT_DISTRIBUTED_SYNC",
          "async_insert", "use ASYNC_INSERT",
          "wait_for_async_insert", "use ASYNC_INSERT",
          "insert_deduplication_token", "the service sets one per INSERT from the message ids");

  private static Optional<PushAuthenticator> authenticator(ConfigReader config) {
    Optional<String> audience = config.optional(PUSH_AUDIENCE);
    Optional<String> account = config.optional(PUSH_SERVICE_ACCOUNT);
    if (audience.isEmpty()) {
      if (account.isPresent()) {
        throw new ConfigurationException(PUSH_SERVICE_ACCOUNT, "needs PUSH_AUDIENCE as well");
      }
      return Optional.empty();
    }
    return Optional.of(
        new PushAuthenticator(
            audience.get(),
            config.required(PUSH_TOKEN_ISSUER),
            account.orElse(null),
            config.httpUrl(PUSH_TOKEN_CERTS_URL).toString()));
  }

  /** True when failed messages have somewhere to go besides Pub/Sub's own dead-lettering. */
  public boolean hasErrorSinks() {
    return clickHouse.errorTable().isPresent() || deadLetterTopic.isPresent();
  }
}
