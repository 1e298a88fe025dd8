package dev.pubsubclickhouse.core.config;

import static dev.pubsubclickhouse.core.config.ClickHouseParameters.*;

import dev.pubsubclickhouse.core.insert.InsertOptions;
import dev.pubsubclickhouse.core.schema.TableName;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Where ClickHouse is, who we are there, which tables, and how to INSERT.
 *
 * @param caCertificate the PEM file of the CA to trust for https, when not the JVM's trust store
 */
public record ClickHouseConfig(
    URI url,
    Optional<Path> caCertificate,
    String user,
    Secret password,
    TableName table,
    Optional<TableName> deadLetterTable,
    boolean createDeadLetterTable,
    InsertOptions insertOptions) {
  /**
   * java.util.logging: each program routes its records into its own log lines (the service through
   * {@link dev.pubsubclickhouse.core.log.JsonLogHandler}).
   */
  private static final Logger LOG = Logger.getLogger(ClickHouseConfig.class.getName());

  /** Reads and checks every ClickHouse parameter; a secret is fetched only when configured. */
  public static ClickHouseConfig read(ConfigReader config, SecretManagerAccess secrets) {
    URI url = config.httpUrl(URL);
    warnWhenInClear(url);
    Optional<Path> caCertificate = config.optional(CA_CERT).map(Path::of);
    if (caCertificate.isPresent()) {
      if (!"https".equals(url.getScheme())) {
        throw new ConfigurationException(CA_CERT, "applies only to an https:// " + URL.env());
      }
      if (!Files.isReadable(caCertificate.get())) {
        throw new ConfigurationException(
            CA_CERT, "no readable file at " + caCertificate.get().toAbsolutePath());
      }
      checkHoldsCertificates(caCertificate.get());
    }
    String database = config.required(DATABASE);
    TableName table = tableName(config, TABLE, database);
    Optional<TableName> deadLetterTable =
        config
            .optional(DEAD_LETTER_TABLE)
            .map(name -> tableName(config, DEAD_LETTER_TABLE, database));
    if (deadLetterTable.equals(Optional.of(table))) {
      // Replay writes a dead letter's rows into the target table under the message id it names.
      throw new ConfigurationException(
          DEAD_LETTER_TABLE,
          "names the target table "
              + table
              + " ("
              + TABLE.env()
              + "): dead letters need a table of their own, one no message is written to");
    }
    Secret password =
        config
            .optional(PASSWORD_SECRET)
            .map(resource -> secrets.access(PASSWORD_SECRET, resource))
            .orElseGet(() -> Secret.of(config.optional(PASSWORD).orElse("")));
    long timeoutMillis = config.longValue(INSERT_TIMEOUT_MS, 100, 3_600_000);
    InsertOptions insertOptions;
    try {
      insertOptions =
          InsertOptions.builder()
              .maxInsertBlockSize(config.longValue(MAX_INSERT_BLOCK_SIZE, 1, Integer.MAX_VALUE))
              .deduplicate(config.bool(INSERT_DEDUPLICATE))
              .quorum(config.optionalInteger(INSERT_QUORUM, 0, 100))
              .distributedSync(config.bool(INSERT_DISTRIBUTED_SYNC))
              .asyncInsert(config.bool(ASYNC_INSERT))
              .extraSettings(config.keyValues(SETTINGS))
              .maxRetries(config.integer(MAX_RETRIES, 0, 100))
              .timeout(Duration.ofMillis(timeoutMillis))
              .build();
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(SETTINGS, e.getMessage());
    }
    return new ClickHouseConfig(
        url,
        caCertificate,
        config.required(USER),
        password,
        table,
        deadLetterTable,
        config.bool(CREATE_DEAD_LETTER_TABLE),
        insertOptions);
  }

  /**
   * Plain http:// to another machine sends the password (a Basic header on every request) and the
   * rows in clear. It is not refused: a private network may be trusted, and local runs and tests
   * use it; but it is said at start, in every program that reads this configuration.
   */
  private static void warnWhenInClear(URI url) {
    if ("http".equals(url.getScheme()) && !ConfigReader.isLoopback(url.getHost())) {
      LOG.warning(
          URL.env()
              + " is http:// to "
              + url.getHost()
              + ": the ClickHouse password and the rows travel in clear; use https:// (ClickHouse"
              + " Cloud: port 8443) unless every network between the two is trusted");
    }
  }

  /**
   * A file that holds no X.509 certificate would make the client fail later with a stack trace, or
   * (empty) trust nothing.
   */
  private static void checkHoldsCertificates(Path pem) {
    String problem;
    try (InputStream in = Files.newInputStream(pem)) {
      if (!CertificateFactory.getInstance("X.509").generateCertificates(in).isEmpty()) {
        return;
      }
      problem = "the file is empty";
    } catch (IOException | GeneralSecurityException e) {
      problem = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
    }
    throw new ConfigurationException(
        CA_CERT, "no certificate in " + pem.toAbsolutePath() + " (PEM expected): " + problem);
  }

  private static TableName tableName(ConfigReader config, Parameter parameter, String database) {
    try {
      return TableName.parse(config.required(parameter), database);
    } catch (IllegalArgumentException e) {
      throw config.problem(parameter, e.getMessage());
    }
  }
}
