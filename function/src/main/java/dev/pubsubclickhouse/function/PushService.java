package dev.pubsubclickhouse.function;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.insert.ClickHouseClients;
import dev.pubsubclickhouse.core.insert.ClickHouseHttp;
import dev.pubsubclickhouse.core.insert.ClickHouseReasons;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.function.envelope.PushRequestParser;
import dev.pubsubclickhouse.function.ingest.AnswerDeadlines;
import dev.pubsubclickhouse.function.ingest.PushAnswer;
import dev.pubsubclickhouse.function.ingest.PushOutcome;
import dev.pubsubclickhouse.function.ingest.RequestMemoryBudget;
import dev.pubsubclickhouse.function.observability.Metrics;
import dev.pubsubclickhouse.messages.MemoryCharge;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.payload.SchemaService;
import dev.pubsubclickhouse.messages.sinks.DeadLetterTopic;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The running push service: one ClickHouse client, the batcher, the dead-letter sinks and the
 * metrics, built once per process and shared by every request thread. It serves at once; the write
 * path opens when ClickHouse and the tables answer ({@link Readiness}), and until then pushes are
 * answered 503 and {@code /healthz} says what is missing.
 */
public final class PushService {
  /**
   * How long a shutdown may take: Cloud Run kills the process 10 s after SIGTERM, and the answers
   * must be on the wire before that.
   */
  private static final long SHUTDOWN_SECONDS = 9;

  private static volatile PushService shared;

  private final PushConfig config;
  private final Client client;
  private final AnswerDeadlines deadlines;
  private final PushRequestParser parser;
  private final Metrics metrics;
  private final DeadLetterTopic topicSink;
  private final SchemaService schemas;
  private final Housekeeping housekeeping;
  private final MetricsServer metricsServer;
  private final AtomicReference<String> loggedPingFailure = new AtomicReference<>();
  private final AtomicInteger activeRequests = new AtomicInteger();
  private volatile boolean requestsCountedByItsServer;
  private final RequestMemoryBudget requestMemory;
  private final Readiness<WritePath> readiness;
  private volatile WritePath writePath;
  private volatile boolean accepting = true;
  private volatile Supplier<Optional<String>> edgeDeath = Optional::empty;

  private PushService(
      PushConfig config,
      Client client,
      ClickHouseHttp http,
      Metrics metrics,
      MetricsServer metricsServer,
      DeadLetterTopic topicSink) {
    this.config = config;
    this.metricsServer = metricsServer;
    this.client = client;
    this.deadlines = new AnswerDeadlines(config.batch().answerTimeout());
    this.parser = new PushRequestParser(config.pushUnwrapped());
    this.metrics = metrics;
    this.topicSink = topicSink;
    this.schemas = new SchemaService(config.pubsubEndpoint().orElse(null));
    metrics.gauge(
        "waiting-requests",
        "Requests waiting for their batch.",
        () -> writePath == null ? 0 : writePath.batcher().waiting());
    metrics.gauge(
        "waiting-bytes",
        "Memory held by waiting requests.",
        () -> writePath == null ? 0 : writePath.batcher().waitingBytes());
    this.requestMemory = new RequestMemoryBudget(config.batch().maxPendingBytes());
    metrics.gauge(
        "request-memory-bytes",
        "Memory held by requests in progress (4 bytes per body byte, and what reading takes).",
        requestMemory::reserved);
    this.housekeeping = new Housekeeping();
    housekeeping.every(config.summaryInterval(), "the summary log", this::logSummary);
    housekeeping.every(
        AnswerDeadlines.SWEEP_INTERVAL, "the answer-deadline sweep", deadlines::sweep);
    this.readiness =
        new Readiness<>(
            () -> WritePath.open(config, client, http, topicSink, schemas, metrics, deadlines),
            e -> failure(config, e),
            this::opened);
  }

  /**
   * Builds the service and starts opening its write path; returns before ClickHouse is asked
   * anything, so that the caller can listen at once.
   *
   * @throws IllegalStateException with one line naming a setting that cannot work (an unreadable CA
   *     certificate, a dead-letter topic or a metrics export to Google without credentials)
   */
  public static PushService start(PushConfig config) {
    JsonLog.neverPrint(config.clickHouse().password().reveal());
    JsonLog.traceProject(config.googleProject().orElse(null));
    List<MeterRegistry> exports =
        config
            .metricsExport()
            .map(export -> List.<MeterRegistry>of(export.registry(config.googleProject())))
            .orElse(List.of());
    Metrics metrics = new Metrics(exports);
    MetricsServer metricsServer;
    try {
      metricsServer =
          config.metricsPort().map(port -> MetricsServer.start(port, metrics)).orElse(null);
    } catch (IllegalStateException e) {
      metrics.closeExports();
      throw e;
    }
    Client client =
        ClickHouseClients.open(
            config.clickHouse(),
            "pubsub-clickhouse-push",
            config.batch().maxConcurrentInserts() + 6);
    try {
      ClickHouseHttp http = ClickHouseHttp.open(config.clickHouse(), "pubsub-clickhouse-push");
      DeadLetterTopic topicSink =
          config.deadLetterTopic().isPresent()
              ? DeadLetterTopic.open(
                  config.deadLetterTopic().get(), config.pubsubEndpoint().orElse(null))
              : null;
      PushService service =
          new PushService(config, client, http, metrics, metricsServer, topicSink);
      // Once it starts: a start refused for a wrong setting says that one line only.
      config.unauthenticatedWarning().ifPresent(warning -> JsonLog.warning(warning, Map.of()));
      service.readiness.start();
      return service;
    } catch (RuntimeException | IOException e) {
      client.close();
      closeQuietly(metricsServer);
      metrics.closeExports();
      throw new IllegalStateException(failure(config, e), e);
    }
  }

  private synchronized void opened(WritePath path) {
    if (!accepting) {
      path.stop(); // shut down meanwhile: its batcher never held a message, its threads must end
      return;
    }
    writePath = path;
    JsonLog.info("push service ready", path.describe(config));
  }

  /**
   * One line naming what is missing or wrong: ClickHouse not answering, the target table, the
   * dead-letter table, a column, or what ClickHouse refused (credentials, grants).
   */
  private static String failure(PushConfig config, Exception e) {
    return ClickHouseReasons.cannotUse(config.clickHouse().url(), e);
  }

  /**
   * The process's service; built from the environment the first time it is asked for (under the
   * Functions Framework's own invoker; the jar's Main installs its own), with a shutdown hook that
   * drains it on SIGTERM as Main's does.
   */
  static PushService shared() {
    PushService service = shared;
    if (service == null) {
      synchronized (PushService.class) {
        if (shared == null) {
          PushService started = start(PushConfig.read(System.getenv()));
          started.shutDownWithTheProcess();
          shared = started;
        }
        service = shared;
      }
    }
    return service;
  }

  /** On SIGTERM (the JVM's shutdown), drains it within {@link #SHUTDOWN_SECONDS}. */
  void shutDownWithTheProcess() {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> shutdown(SHUTDOWN_SECONDS), "shutdown"));
  }

  /**
   * Makes {@code service} the process's, for a server that counts the requests in progress itself
   * ({@link PushServer}).
   */
  static void install(PushService service) {
    service.requestsCountedByItsServer = true;
    shared = service;
  }

  /** True when the server that installed it counts the requests in progress. */
  boolean requestsCountedByItsServer() {
    return requestsCountedByItsServer;
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

  /**
   * Ingests one message and says how it ended; 503 before the write path opens and at shutdown.
   * What reading it takes is charged to {@code memory}, the request's hold on {@link
   * #requestMemory()}. The calling thread waits inside the batcher, where it may write its batch.
   */
  public PushAnswer push(PubSubMessage message, MemoryCharge memory) {
    WritePath path = writePath;
    return accepting && path != null
        ? path.ingestor().ingest(message, memory)
        : PushAnswer.of(PushOutcome.UNAVAILABLE);
  }

  /**
   * As {@link #push}, without waiting for the batch: the answer completes when the message is
   * written, dead-lettered or given up on (never exceptionally).
   */
  public CompletableFuture<PushAnswer> submit(PubSubMessage message, MemoryCharge memory) {
    WritePath path = writePath;
    return accepting && path != null
        ? path.ingestor().submit(message, memory)
        : CompletableFuture.completedFuture(PushAnswer.of(PushOutcome.UNAVAILABLE));
  }

  /**
   * A request is being served, from its arrival until its answer is on the wire: shutdown waits for
   * every one of them, so that no answer is cut off when the process exits.
   */
  void requestStarted() {
    activeRequests.incrementAndGet();
  }

  void requestEnded() {
    activeRequests.decrementAndGet();
  }

  /** Requests that have arrived and whose answer is not yet on the wire. */
  int requestsInProgress() {
    return activeRequests.get();
  }

  /**
   * Empty while the service can write; else why it cannot (a stopped batch flusher or table watch).
   */
  public Optional<String> deathCause() {
    Optional<String> edge = edgeDeath.get();
    if (edge.isPresent()) {
      return edge;
    }
    WritePath path = writePath;
    return path == null ? Optional.empty() : path.deathCause();
  }

  /**
   * Makes {@link #deathCause()} say what {@code cause} says too: an edge that stopped taking
   * messages (a failed subscriber) which only a new instance cures.
   */
  public void alsoDiesWith(Supplier<Optional<String>> cause) {
    edgeDeath = cause;
  }

  /**
   * Empty when the service can take messages: its write path is open and ClickHouse answers a ping.
   * Else one line saying why not: ClickHouse unreachable, a table missing, shutting down.
   */
  public Optional<String> unhealthyReason() {
    if (!accepting) {
      return Optional.of("shutting down");
    }
    Optional<String> notReady = readiness.notReadyReason();
    if (notReady.isPresent()) {
      return notReady;
    }
    if (client.ping(2_000)) {
      loggedPingFailure.set(null);
      return Optional.empty();
    }
    String reason = "ClickHouse at " + config.clickHouse().url() + " does not answer a ping";
    // Probes come every few seconds: the reason is logged when it begins, not at each.
    if (loggedPingFailure.getAndSet(reason) == null) {
      JsonLog.warning("unhealthy; answering /healthz 503", Map.of("reason", reason));
    }
    return Optional.of(reason);
  }

  /** Where {@code GET /metrics} is served on a port of its own, if it is. */
  Optional<Integer> metricsPort() {
    return Optional.ofNullable(metricsServer).map(MetricsServer::port);
  }

  /** Waits up to {@code timeout} for the write path to open; true when it did. */
  public boolean awaitReady(Duration timeout) throws InterruptedException {
    return readiness.awaitOpen(timeout);
  }

  /**
   * Stops taking messages, writes what waits, and answers every waiting request; returns within
   * {@code seconds}: a push request's answer still has to be written, so the writing stops a second
   * before.
   */
  public void shutdown(long seconds) {
    long writing = Math.max(1, seconds - 1);
    shutdown(Duration.ofSeconds(writing), Duration.ofSeconds(Math.max(0, seconds - writing)));
  }

  /**
   * Stops taking messages, writes what waits for up to {@code writing}, answers 503 to what is left
   * (a message whose INSERT is still running included), then waits up to {@code answering} for the
   * push requests to send their answers.
   */
  public void shutdown(Duration writing, Duration answering) {
    long start = System.nanoTime();
    long deadline = start + writing.plus(answering).toNanos();
    WritePath path;
    synchronized (this) {
      accepting = false;
      readiness.stop();
      path = writePath;
    }
    boolean drained = false;
    try {
      drained = path == null || path.batcher().drain(writing.toNanos(), TimeUnit.NANOSECONDS);
      if (!drained) {
        deadlines.expireAll(); // what ClickHouse did not take in time is answered 503
      }
      while (requestsInProgress() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      if (topicSink != null) {
        topicSink.close();
      }
      schemas.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    housekeeping.close();
    if (path != null) {
      path.stop();
    }
    logSummary();
    JsonLog.info(
        "push service stopped",
        Map.of(
            "drained",
            drained,
            "unanswered",
            requestsInProgress(),
            "stoppingMillis",
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
    client.close();
    closeQuietly(metricsServer);
    metrics.closeExports(); // last: a slow receiver may hold it until the process is killed
  }

  private static void closeQuietly(MetricsServer server) {
    if (server == null) {
      return;
    }
    try {
      server.close();
    } catch (Exception e) {
      JsonLog.warning("the metrics listener did not stop", Map.of("error", e.toString()));
    }
  }

  private void logSummary() {
    Map<String, Object> fields = new LinkedHashMap<>(metrics.snapshot());
    JsonLog.info("summary", fields);
  }
}
