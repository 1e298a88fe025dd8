package dev.pubsubclickhouse.function.observability;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The service's counters, distributions and gauges, kept by Micrometer: {@code GET /metrics} is its
 * Prometheus registry's text, and the same meters go to any further registry given (OTLP, {@link
 * MetricsExport}). Names follow the Dataflow template's counters ({@code messages-received}, {@code
 * rows-parsed-ok}, ...) so dashboards carry over: the meter of {@code messages-received} is {@code
 * pubsub_clickhouse_messages_received}, which Prometheus shows as {@code
 * pubsub_clickhouse_messages_received_total}.
 */
public final class Metrics extends MetricRegistries {
  // Declared first: the metric fields below register themselves here as they are built.
  private final Map<String, Object> all = new LinkedHashMap<>();

  public final Counter messagesReceived =
      counter("messages-received", "Push requests with a message.");
  public final Counter rowsParsedOk =
      counter("rows-parsed-ok", "Rows encoded for the target table.");
  public final Counter rowsParseFailed =
      counter("rows-parse-failed", "Messages or rows that could not be read or mapped.");
  public final Distribution messagePayloadBytes =
      distribution(
          "message-payload-bytes",
          "Size of message data after decompression.",
          new long[] {256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304});
  public final Counter inserts = counter("inserts", "INSERT statements that succeeded.");
  public final Counter insertedRows = counter("inserted-rows", "Rows written by those INSERTs.");
  public final Counter insertFailures =
      counter("insert-failures", "INSERT statements that failed.");
  public final Distribution insertLatencyMillis =
      distribution(
          "insert-latency-ms",
          "Time an INSERT took, retries included.",
          new long[] {1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000});
  public final Distribution batchRows =
      distribution(
          "batch-rows",
          "Rows per INSERT.",
          new long[] {1, 10, 50, 100, 250, 500, 1000, 5000, 10000, 50000});
  public final Counter deadLettered =
      counter("dead-lettered", "Messages sent to the dead-letter sinks.");
  public final Counter viewFailures =
      counter(
          "view-failures",
          "INSERTs a materialized view failed on: their rows are in the target table, or, when"
              + " its engine keeps nothing, written again apart.");
  public final Counter columnsAdded =
      counter("schema-columns-added", "Columns schema evolution added for new fields.");
  public final Counter fieldsNotAdded =
      counter(
          "schema-fields-not-added",
          "New fields schema evolution gave no column (name, limits, ClickHouse refused).");
  public final Counter columnTypeConflicts =
      counter(
          "schema-column-type-conflicts",
          "New fields whose column another instance added first with another type.");
  public final Counter schemaLookups =
      counter("schema-lookups", "Lookups in Pub/Sub's schema service.");
  public final Counter schemaLookupsRefused =
      counter(
          "schema-lookups-refused",
          "Messages answered 503 because their schema's lookup was over"
              + " SCHEMA_LOOKUPS_PER_MINUTE.");

  public final Counter changeTombstones =
      counter("cdc-tombstones", "Debezium tombstones acknowledged without a row.");
  public final Counter changeHeartbeats =
      counter("cdc-heartbeats", "Debezium heartbeats acknowledged without a row.");
  public final Counter changeTransactions =
      counter(
          "cdc-transactions",
          "Debezium transaction markers (BEGIN, END) acknowledged without a row.");
  public final Counter changeSchemaChanges =
      counter("cdc-schema-changes", "Debezium schema changes acknowledged without a row.");
  public final Counter overloaded = counter("overloaded", "Requests refused with 429.");
  public final Counter throttled =
      counter(
          "throttled",
          "Of those, refused because the target table has nearly as many parts as ClickHouse"
              + " allows.");
  public final Counter unavailable = counter("unavailable", "Requests answered 503.");
  public final Counter unprocessable =
      counter(
          "unprocessable",
          "Requests answered 422: a message that cannot be written, with no dead-letter sink.");
  public final Counter badRequests =
      counter("bad-requests", "Requests that were not push requests.");
  public final Counter pullAcked =
      counter("pull-acked", "Pulled messages acked, each ack confirmed by Pub/Sub.");
  public final Counter pullNacked =
      counter("pull-nacked", "Pulled messages nacked: Pub/Sub delivers them again.");
  public final Counter pullAckFailures =
      counter(
          "pull-ack-failures",
          "Acks Pub/Sub refused (an exactly-once subscription whose ack id had expired): the"
              + " message comes again, and its rows' deduplication token keeps them once.");

  /**
   * Where a written message's request spent its time, as sums of nanoseconds over the messages
   * timed: a mean per phase is a difference of two readings of a sum over a difference of two of
   * the count. Sums, not histograms, cost four clock readings and five additions per message.
   */
  public final RequestPhases requestPhases = new RequestPhases();

  /** The sums of {@link #requestPhases}, one counter each. */
  public final class RequestPhases {
    private final Counter timed =
        counter("request-phases-timed", "Requests whose phases the request-*-ns sums hold.");
    private final Counter parse =
        counter(
            "request-parse-ns", "Nanoseconds from a request's arrival to its message's queueing.");
    private final Counter batchWait =
        counter(
            "request-batch-wait-ns",
            "Nanoseconds from a message's queueing until its batch was taken for an INSERT.");
    private final Counter write =
        counter(
            "request-write-ns",
            "Nanoseconds from a batch taken until its message's answer (the INSERT, wire and"
                + " ClickHouse).");
    private final Counter answer =
        counter(
            "request-answer-ns",
            "Nanoseconds from a message's answer until its request's thread had it.");

    private RequestPhases() {}

    /** One request's phases, from its clock readings (System.nanoTime()). */
    public void record(long arrived, long queued, long taken, long answered, long returned) {
      timed.increment();
      parse.add(queued - arrived);
      batchWait.add(taken - queued);
      write.add(answered - taken);
      answer.add(returned - answered);
    }
  }

  /** The meters, kept in Prometheus's registry only. */
  public Metrics() {
    this(List.of());
  }

  /** The meters, also kept in {@code exports} (e.g. an OTLP registry that pushes them). */
  public Metrics(List<MeterRegistry> exports) {
    super(exports);
  }

  /** The meter's name for a Dataflow counter's name. */
  static String meterName(String name) {
    return "pubsub_clickhouse_" + name.replace('-', '_');
  }

  private static String help(String name, String description) {
    return description + " (" + name + ")";
  }

  private Counter counter(String name, String description) {
    Counter counter =
        new Counter(
            io.micrometer.core.instrument.Counter.builder(meterName(name))
                .description(help(name, description))
                .register(registry));
    register(name, counter);
    return counter;
  }

  private Distribution distribution(String name, String description, long[] bounds) {
    Distribution distribution =
        new Distribution(
            DistributionSummary.builder(meterName(name))
                .description(help(name, description))
                .serviceLevelObjectives(Arrays.stream(bounds).asDoubleStream().toArray())
                .register(registry));
    register(name, distribution);
    return distribution;
  }

  /** A value read when the metrics are written, e.g. the number of waiting requests. */
  public void gauge(String name, String description, LongSupplier value) {
    Gauge.builder(meterName(name), value, LongSupplier::getAsLong)
        .description(help(name, description))
        .strongReference(true)
        .register(registry);
    register(name, value);
  }

  private synchronized void register(String name, Object metric) {
    all.put(name, metric);
  }

  /** Counter and gauge values by name, for the periodic summary log line. */
  public synchronized Map<String, Long> snapshot() {
    Map<String, Long> values = new LinkedHashMap<>();
    all.forEach(
        (name, metric) -> {
          if (metric instanceof Counter counter) {
            values.put(name, counter.value());
          } else if (metric instanceof Distribution distribution) {
            values.put(name + "-count", distribution.count());
          } else if (metric instanceof LongSupplier gauge) {
            values.put(name, gauge.getAsLong());
          }
        });
    return values;
  }

  /** The Prometheus text exposition format, version 0.0.4. */
  public String prometheusText() {
    return prometheus.scrape();
  }

  /** A monotonic count. */
  public static final class Counter {
    private final io.micrometer.core.instrument.Counter counter;

    Counter(io.micrometer.core.instrument.Counter counter) {
      this.counter = counter;
    }

    public void increment() {
      counter.increment();
    }

    public void add(long amount) {
      counter.increment(amount);
    }

    public long value() {
      return (long) counter.count();
    }
  }

  /** Counts of observations in fixed buckets (Prometheus's histogram), with their sum. */
  public static final class Distribution {
    private final DistributionSummary summary;

    Distribution(DistributionSummary summary) {
      this.summary = summary;
    }

    public void record(long value) {
      summary.record(value);
    }

    public long count() {
      return summary.count();
    }

    public long sum() {
      return (long) summary.totalAmount();
    }
  }
}
