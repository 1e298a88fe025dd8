package dev.pubsubclickhouse.function.observability;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The service's counters, distributions and gauges. Names follow the Dataflow template's counters
 * ({@code messages-received}, {@code rows-parsed-ok}, ...) so dashboards carry over; {@link
 * #prometheusText()} writes them as {@code pubsub_clickhouse_messages_received_total} and so on.
 */
public final class Metrics {
  // Declared first: the metric fields below register themselves here as they are built.
  private final Map<String, Object> all = new LinkedHashMap<>();
  private final Map<String, String> help = new LinkedHashMap<>();

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
          "INSERTs whose rows reached the target table but a materialized view on it failed.");
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
  public final Counter overloaded = counter("overloaded", "Requests refused with 429.");
  public final Counter unavailable = counter("unavailable", "Requests answered 503.");
  public final Counter badRequests =
      counter("bad-requests", "Requests that were not push requests.");

  private Counter counter(String name, String description) {
    Counter counter = new Counter();
    register(name, description, counter);
    return counter;
  }

  private Distribution distribution(String name, String description, long[] bounds) {
    Distribution distribution = new Distribution(bounds);
    register(name, description, distribution);
    return distribution;
  }

  /** A value read when the metrics are written, e.g. the number of waiting requests. */
  public void gauge(String name, String description, LongSupplier value) {
    register(name, description, value);
  }

  private synchronized void register(String name, String description, Object metric) {
    all.put(name, metric);
    help.put(name, description);
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
  public synchronized String prometheusText() {
    StringBuilder text = new StringBuilder(4096);
    all.forEach(
        (name, metric) -> {
          String base = "pubsub_clickhouse_" + name.replace('-', '_');
          if (metric instanceof Counter counter) {
            header(text, base + "_total", name, "counter");
            text.append(base).append("_total ").append(counter.value()).append('\n');
          } else if (metric instanceof LongSupplier gauge) {
            header(text, base, name, "gauge");
            text.append(base).append(' ').append(gauge.getAsLong()).append('\n');
          } else if (metric instanceof Distribution distribution) {
            header(text, base, name, "histogram");
            distribution.appendPrometheus(base, text);
          }
        });
    return text.toString();
  }

  private void header(StringBuilder text, String metric, String name, String type) {
    text.append("# HELP ")
        .append(metric)
        .append(' ')
        .append(help.get(name))
        .append(" (")
        .append(name)
        .append(")\n");
    text.append("# TYPE ").append(metric).append(' ').append(type).append('\n');
  }

  /** A monotonic count. */
  public static final class Counter {
    private final LongAdder value = new LongAdder();

    public void increment() {
      value.increment();
    }

    public void add(long amount) {
      value.add(amount);
    }

    public long value() {
      return value.sum();
    }
  }

  /** Counts of observations in fixed buckets, with their sum. */
  public static final class Distribution {
    private final long[] bounds;
    private final LongAdder[] buckets;
    private final LongAdder sum = new LongAdder();
    private final AtomicLong count = new AtomicLong();

    Distribution(long[] bounds) {
      this.bounds = bounds;
      this.buckets = new LongAdder[bounds.length + 1];
      for (int i = 0; i < buckets.length; i++) {
        buckets[i] = new LongAdder();
      }
    }

    public void record(long value) {
      int bucket = 0;
      while (bucket < bounds.length && value > bounds[bucket]) {
        bucket++;
      }
      buckets[bucket].increment();
      sum.add(value);
      count.incrementAndGet();
    }

    public long count() {
      return count.get();
    }

    public long sum() {
      return sum.sum();
    }

    void appendPrometheus(String base, StringBuilder text) {
      long cumulative = 0;
      for (int i = 0; i < bounds.length; i++) {
        cumulative += buckets[i].sum();
        text.append(base)
            .append("_bucket{le=\"")
            .append(bounds[i])
            .append("\"} ")
            .append(cumulative)
            .append('\n');
      }
      cumulative += buckets[bounds.length].sum();
      text.append(base).append("_bucket{le=\"+Inf\"} ").append(cumulative).append('\n');
      text.append(base).append("_sum ").append(sum.sum()).append('\n');
      text.append(base).append("_count ").append(cumulative).append('\n');
    }
  }
}
