package dev.pubsubclickhouse.function;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.evolve.ColumnAdder;
import dev.pubsubclickhouse.core.insert.ClickHouseClients;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.insert.ClickHouseHttp;
import dev.pubsubclickhouse.core.insert.ClickHouseHttpException;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertFormat;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.write.DeadLetterSink;
import dev.pubsubclickhouse.core.write.DeadLetterTable;
import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.function.envelope.PayloadDecompressor;
import dev.pubsubclickhouse.function.envelope.PushMessage;
import dev.pubsubclickhouse.function.envelope.PushRequestParser;
import dev.pubsubclickhouse.function.ingest.AnswerDeadlines;
import dev.pubsubclickhouse.function.ingest.BatchWriter;
import dev.pubsubclickhouse.function.ingest.GroupCommitBatcher;
import dev.pubsubclickhouse.function.ingest.Ingestor;
import dev.pubsubclickhouse.function.ingest.MessageEncoder;
import dev.pubsubclickhouse.function.ingest.PushOutcome;
import dev.pubsubclickhouse.function.ingest.RequestMemoryBudget;
import dev.pubsubclickhouse.function.observability.JsonLog;
import dev.pubsubclickhouse.function.observability.Metrics;
import dev.pubsubclickhouse.function.observability.PushEvolutionEvents;
import dev.pubsubclickhouse.function.observability.PushWriteEvents;
import dev.pubsubclickhouse.function.schemas.PayloadFormats;
import dev.pubsubclickhouse.function.schemas.SchemaService;
import dev.pubsubclickhouse.function.sinks.DeadLetterTopic;
import dev.pubsubclickhouse.function.tables.Destination;
import dev.pubsubclickhouse.function.tables.Destinations;
import dev.pubsubclickhouse.function.tables.UnknownFieldsColumn;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The running push service: one ClickHouse client, the target table, the batcher, the dead-letter
 * sinks and the metrics, built once per process and shared by every request thread.
 */
public final class PushService {
  /** How long the service waits for one ALTER of schema evolution. */
  private static final Duration DDL_TIMEOUT = Duration.ofSeconds(60);

  private static volatile PushService shared;

  private final PushConfig config;
  private final Client client;
  private final Ingestor ingestor;
  private final GroupCommitBatcher batcher;
  private final AnswerDeadlines deadlines;
  private final PushRequestParser parser;
  private final Metrics metrics;
  private final DeadLetterTopic topicSink;
  private final SchemaService schemas;
  private final ScheduledExecutorService housekeeping;
  private final AtomicInteger activeRequests = new AtomicInteger();
  private final RequestMemoryBudget requestMemory;
  private volatile boolean accepting = true;

  private PushService(
      PushConfig config,
      Client client,
      Ingestor ingestor,
      GroupCommitBatcher batcher,
      AnswerDeadlines deadlines,
      Metrics metrics,
      DeadLetterTopic topicSink,
      SchemaService schemas) {
    this.config = config;
    this.schemas = schemas;
    this.client = client;
    this.ingestor = ingestor;
    this.batcher = batcher;
    this.deadlines = deadlines;
    this.parser = new PushRequestParser(config.pushUnwrapped());
    this.metrics = metrics;
    this.topicSink = topicSink;
    metrics.gauge("waiting-requests", "Requests waiting for their batch.", batcher::waiting);
    metrics.gauge("waiting-bytes", "Memory held by waiting requests.", batcher::waitingBytes);
    this.requestMemory = new RequestMemoryBudget(config.batch().maxPendingBytes());
    metrics.gauge(
        "request-memory-bytes",
        "Memory reserved by requests in progress (4 bytes per body byte).",
        requestMemory::reserved);
    this.housekeeping =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "housekeeping");
              thread.setDaemon(true);
              return thread;
            });
    long every = config.summaryInterval().toSeconds();
    housekeeping.scheduleAtFixedRate(this::logSummary, every, every, TimeUnit.SECONDS);
    long sweep = AnswerDeadlines.SWEEP_INTERVAL.toMillis();
    housekeeping.scheduleAtFixedRate(deadlines::sweep, sweep, sweep, TimeUnit.MILLISECONDS);
  }

  /**
   * Connects to ClickHouse, checks the target and dead-letter tables, and starts the batcher.
   *
   * @throws IllegalStateException with one line naming what is wrong
   */
  public static PushService start(PushConfig config) {
    Client client =
        ClickHouseClients.open(
            config.clickHouse(),
            "pubsub-clickhouse-push",
            config.batch().maxConcurrentInserts() + 6);
    SchemaService schemas = null;
    try {
      ClickHouseInserter inserter =
          new ClickHouseInserter(
              ClickHouseHttp.open(config.clickHouse(), "pubsub-clickhouse-push"),
              InsertFormat.supportedBy(client),
              config.clickHouse().insertOptions());
      checkPassedSettings(inserter);
      List<DeadLetterSink> sinks = new ArrayList<>();
      if (config.clickHouse().deadLetterTable().isPresent()) {
        sinks.add(
            DeadLetterTable.open(
                client,
                config.clickHouse().deadLetterTable().get(),
                config.clickHouse().createDeadLetterTable(),
                inserter));
      }
      DeadLetterTopic topicSink = null;
      if (config.deadLetterTopic().isPresent()) {
        topicSink =
            DeadLetterTopic.open(
                config.deadLetterTopic().get(), config.pubsubEndpoint().orElse(null));
        sinks.add(topicSink);
      }
      Metrics metrics = new Metrics();
      Destinations destinations = destinations(config, client, inserter, sinks, metrics);
      schemas = new SchemaService(config.pubsubEndpoint().orElse(null));
      MessageEncoder encoder =
          new MessageEncoder(
              new PayloadDecompressor(config.maxDecompressedBytes()),
              new PayloadFormats(schemas),
              columnAdder(config, client, metrics),
              config.tables().unknownFieldsColumn().orElse(null),
              metrics,
              Clock.systemUTC());
      GroupCommitBatcher batcher = new GroupCommitBatcher(config.batch(), new BatchWriter());
      AnswerDeadlines deadlines = new AnswerDeadlines(config.batch().answerTimeout());
      Ingestor ingestor = new Ingestor(destinations, encoder, batcher, deadlines, metrics);
      PushService service =
          new PushService(
              config, client, ingestor, batcher, deadlines, metrics, topicSink, schemas);
      JsonLog.info("push service ready", service.describe(sinks, inserter));
      return service;
    } catch (ConfigurationException e) {
      client.close();
      closeQuietly(schemas);
      throw e;
    } catch (RuntimeException | IOException | ClickHouseHttpException e) {
      client.close();
      closeQuietly(schemas);
      throw new IllegalStateException(startFailure(config, e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      client.close();
      throw new IllegalStateException("interrupted while starting", e);
    }
  }

  /**
   * The tables messages may go to: the default one, read now, and those CLICKHOUSE_TABLES allows,
   * read when a message first names them; each with its writer (one INSERT per table per batch).
   */
  private static Destinations destinations(
      PushConfig config,
      Client client,
      ClickHouseInserter inserter,
      List<DeadLetterSink> sinks,
      Metrics metrics) {
    SchemaReader reader = new SchemaReader(client);
    Function<TableName, Destination> opener =
        name -> {
          TargetTable table = new TargetTable(name, reader);
          UnknownFieldsColumn.check(config.tables(), table);
          return new Destination(
              table,
              new TableWriter(
                  table, inserter, sinks, new PushWriteEvents(metrics, name), "pubsub"));
        };
    return new Destinations(config.tables(), opener, opener.apply(config.clickHouse().table()));
  }

  /** Adds columns for new fields when SCHEMA_EVOLUTION=add_columns; null when it is off. */
  private static ColumnAdder columnAdder(PushConfig config, Client client, Metrics metrics) {
    return config
        .tables()
        .evolution()
        .map(
            policy ->
                new ColumnAdder(
                    policy,
                    sql ->
                        client.execute(sql).get(DDL_TIMEOUT.toSeconds(), TimeUnit.SECONDS).close(),
                    new PushEvolutionEvents(metrics)))
        .orElse(null);
  }

  private static void closeQuietly(SchemaService schemas) {
    if (schemas != null) {
      schemas.close();
    }
  }

  /** A CLICKHOUSE_SETTINGS name or value ClickHouse refuses stops start-up, naming the variable. */
  private static void checkPassedSettings(ClickHouseInserter inserter)
      throws IOException, InterruptedException, ClickHouseHttpException {
    try {
      inserter.checkPassedSettings();
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(ClickHouseParameters.SETTINGS, e.getMessage());
    }
  }

  private static String startFailure(PushConfig config, Exception e) {
    String reason = ClickHouseFailures.describe(e);
    return reason.startsWith("table ")
            || reason.startsWith("dead-letter table ")
            || reason.startsWith("column ")
        ? reason
        : "cannot use ClickHouse at " + config.clickHouse().url() + ": " + reason;
  }

  /** The process's service; built from the environment the first time it is asked for. */
  static PushService shared() {
    PushService service = shared;
    if (service == null) {
      synchronized (PushService.class) {
        if (shared == null) {
          shared = start(PushConfig.read(System.getenv()));
        }
        service = shared;
      }
    }
    return service;
  }

  static void install(PushService service) {
    shared = service;
  }

  public PushConfig config() {
    return config;
  }

  public PushRequestParser parser() {
    return parser;
  }

  public Metrics metrics() {
    return metrics;
  }

  /** What requests in progress may hold; shared by every request thread. */
  public RequestMemoryBudget requestMemory() {
    return requestMemory;
  }

  /** Ingests one message and says how it ended; 503 once shutdown has begun. */
  public PushOutcome push(PushMessage message) {
    activeRequests.incrementAndGet();
    try {
      return accepting ? ingestor.ingest(message) : PushOutcome.UNAVAILABLE;
    } finally {
      activeRequests.decrementAndGet();
    }
  }

  /** Empty while the service can write; else why it cannot (a stopped batch flusher). */
  public Optional<String> deathCause() {
    return batcher
        .flusherDeath()
        .map(e -> "batch flusher stopped: " + e.getClass().getSimpleName());
  }

  /** True when ClickHouse answers. */
  public boolean healthy() {
    return accepting && client.ping(2_000);
  }

  /**
   * Stops taking messages, writes what waits, and answers every waiting request; returns within
   * {@code seconds}.
   */
  public void shutdown(long seconds) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    accepting = false;
    boolean drained = false;
    try {
      drained = batcher.drain(Math.max(1, seconds - 1), TimeUnit.SECONDS);
      if (!drained) {
        deadlines.expireAll(); // what ClickHouse did not take in time is answered 503
      }
      while (activeRequests.get() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      if (topicSink != null) {
        topicSink.close();
      }
      schemas.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    housekeeping.shutdownNow();
    logSummary();
    JsonLog.info(
        "push service stopped", Map.of("drained", drained, "unanswered", activeRequests.get()));
    client.close();
  }

  private void logSummary() {
    Map<String, Object> fields = new LinkedHashMap<>(metrics.snapshot());
    JsonLog.info("summary", fields);
  }

  private Map<String, Object> describe(List<DeadLetterSink> sinks, ClickHouseInserter inserter) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("clickhouse", config.clickHouse().url().toString());
    fields.put("table", config.clickHouse().table().toString());
    config.tables().tableAttribute().ifPresent(a -> fields.put("tableAttribute", a));
    if (!config.tables().allowedTables().isEmpty()) {
      fields.put("tables", config.tables().allowedTables().stream().map(Object::toString).toList());
    }
    fields.put("schemaEvolution", config.tables().evolution().isPresent() ? "add_columns" : "off");
    config.tables().unknownFieldsColumn().ifPresent(c -> fields.put("unknownFieldsColumn", c));
    fields.put("deadLetterSinks", sinks.stream().map(DeadLetterSink::name).toList());
    fields.put("insertFormat", inserter.format().clickHouseName());
    fields.put("batchMaxRows", config.batch().maxRows());
    fields.put("batchMaxWaitMs", config.batch().maxWait().toMillis());
    fields.put("asyncInsert", config.clickHouse().insertOptions().asyncInsert());
    return fields;
  }
}
