package dev.pubsubclickhouse.function.flow;

import dev.pubsubclickhouse.function.ingest.PendingMessage;
import dev.pubsubclickhouse.function.ingest.PushOutcome;
import dev.pubsubclickhouse.function.observability.JsonLog;
import dev.pubsubclickhouse.function.observability.Metrics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Puts {@link FlowControl} between the batcher and ClickHouse: reads the table's load every {@code
 * watchInterval} (four times as often under pressure, and once more before every INSERT then, so
 * that instances racing toward the limit see each other's parts), tells the batcher its pace,
 * refuses new messages while the table is near its limit, and answers a batch it must not send 429
 * instead of sending it. Nothing refused is acknowledged, so Pub/Sub delivers it again later.
 */
public final class FlowGate implements Consumer<List<PendingMessage>> {
  private final FlowControl control;
  private final Supplier<TableLoad> reader;
  private final Consumer<List<PendingMessage>> writer;
  private final Metrics metrics;
  private final long intervalNanos;
  private final AtomicLong inserts = new AtomicLong();
  private volatile Runnable paceFell = () -> {};
  private volatile TableLoad lastLoad;
  private volatile Throwable watchDeath;
  private boolean readable = true;

  /**
   * @param reader reads the table's load (a query); may throw
   * @param writer writes a batch the gate lets through
   */
  public FlowGate(
      FlowControl control,
      Supplier<TableLoad> reader,
      Consumer<List<PendingMessage>> writer,
      Metrics metrics,
      FlowPolicy policy) {
    this.control = control;
    this.reader = reader;
    this.writer = writer;
    this.metrics = metrics;
    this.intervalNanos = policy.watchInterval().toNanos();
    metrics.gauge(
        "part-pressure-percent",
        "Active parts in the target table's fullest partition, as a percentage of the count at"
            + " which ClickHouse slows INSERTs.",
        () -> Math.round(100 * control.state().pressure()));
    metrics.gauge(
        "table-partition-parts",
        "Active parts in the target table's fullest partition, as last read.",
        () -> lastLoad == null ? -1 : lastLoad.partitionParts());
    metrics.gauge(
        "table-inserts-per-second",
        "New parts per second in the target table from every writer, as last measured.",
        () -> Math.round(control.state().tableInsertsPerSecond()));
    metrics.gauge(
        "insert-pace-us",
        "The least time between two INSERTs from this instance now, microseconds.",
        () -> control.state().paceNanos() / 1000);
  }

  /** The batcher to wake when the pace falls, so that a paced batch need not wait out the old. */
  public void whenPaceFalls(Runnable wake) {
    this.paceFell = wake;
  }

  /** Reads the table now, and again and again on {@code scheduler} until it shuts down. */
  public void start(ScheduledExecutorService scheduler) {
    watchAndSchedule(scheduler);
  }

  /**
   * Empty while the table is watched; else what stopped the watch (the next reading could not be
   * scheduled): flow control is off for good, and the liveness probe should say so.
   */
  public Optional<Throwable> watchDeath() {
    return Optional.ofNullable(watchDeath);
  }

  /**
   * One reading, then the next one scheduled whatever the reading threw: an Error that ended the
   * chain would freeze flow control where it was, possibly refusing every message (429) for good.
   */
  private void watchAndSchedule(ScheduledExecutorService scheduler) {
    long paceBefore = control.state().paceNanos();
    try {
      watch();
    } catch (Throwable e) {
      if (unreadable(e).paceNanos() < paceBefore) {
        paceFell.run();
      }
      JsonLog.error("reading the target table's load failed", Map.of(), e);
    } finally {
      schedule(scheduler);
    }
  }

  private void schedule(ScheduledExecutorService scheduler) {
    long delay =
        control.state().pressure() >= FlowControl.GATHER_FROM ? intervalNanos / 4 : intervalNanos;
    try {
      scheduler.schedule(() -> watchAndSchedule(scheduler), delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      if (!scheduler.isShutdown()) {
        died(e);
      }
    } catch (Throwable e) {
      died(e);
    }
  }

  /** No reading comes any more: nothing may stay refused on a reading that will never change. */
  private void died(Throwable e) {
    if (watchDeath == null) {
      watchDeath = e;
    }
    control.unknown();
    paceFell.run();
    JsonLog.error("table watch stopped; flow control is off", Map.of(), e);
  }

  /** False while new messages must be refused (429). */
  public boolean admits() {
    return !control.state().refusing();
  }

  /** The least time between the starts of two INSERTs now, for the batcher. */
  public long paceNanos() {
    return control.state().paceNanos();
  }

  @Override
  public void accept(List<PendingMessage> batch) {
    if (control.state().pressure() >= FlowControl.GATHER_FROM) {
      watch();
    }
    if (control.state().refusing()) {
      metrics.overloaded.add(batch.size());
      metrics.throttled.add(batch.size());
      batch.forEach(message -> message.answer().complete(PushOutcome.OVERLOADED));
      return;
    }
    inserts.incrementAndGet();
    writer.accept(batch);
  }

  /** One reading of the table; a failed one is logged once and counts as no pressure. */
  synchronized void watch() {
    FlowControl.State before = control.state();
    FlowControl.State after;
    try {
      TableLoad load = reader.get();
      lastLoad = load;
      after = control.observe(load, inserts.get(), System.nanoTime());
      if (!readable) {
        readable = true;
        JsonLog.info("reading the target table's load again", Map.of());
      }
      logChange(before, after, load);
    } catch (RuntimeException e) {
      after = unreadable(e);
    }
    if (after.paceNanos() < before.paceNanos()) {
      paceFell.run();
    }
  }

  /** A reading that failed counts as no pressure; logged once until a reading succeeds. */
  private synchronized FlowControl.State unreadable(Throwable e) {
    lastLoad = null;
    if (readable) {
      readable = false;
      JsonLog.warning(
          "cannot read the target table's load; flow control is off until it can",
          Map.of("error", String.valueOf(e.getMessage())));
    }
    return control.unknown();
  }

  private static void logChange(FlowControl.State before, FlowControl.State after, TableLoad load) {
    boolean gatheringBefore = before.pressure() >= FlowControl.GATHER_FROM;
    boolean gathering = after.pressure() >= FlowControl.GATHER_FROM;
    if (before.refusing() == after.refusing() && gatheringBefore == gathering) {
      return;
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("pressurePercent", Math.round(100 * after.pressure()));
    fields.put("partitionParts", load.partitionParts());
    fields.put("partsToDelayInsert", load.partsToDelayInsert());
    fields.put("partsToThrowInsert", load.partsToThrowInsert());
    fields.put("merges", load.merges());
    fields.put("insertPaceMs", after.paceNanos() / 1_000_000.0);
    String message =
        after.refusing()
            ? "target table near its part limit: refusing new messages (429)"
            : gathering ? "target table under part pressure: larger batches" : "part pressure over";
    if (after.refusing() || gathering) {
      JsonLog.warning(message, fields);
    } else {
      JsonLog.info(message, fields);
    }
  }
}
