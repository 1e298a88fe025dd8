package dev.pubsubclickhouse.function.flow;

import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.function.ingest.PendingMessage;
import dev.pubsubclickhouse.function.ingest.PushOutcome;
import dev.pubsubclickhouse.function.observability.Metrics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Flow control for one table. The gate reads the table's load from ClickHouse on a schedule, and
 * {@link FlowControl} turns each reading into the least time between two INSERTs into the table.
 * While the table is near its part limit, {@link #admits} is false and {@link #letThrough} answers
 * a batch's messages 429 instead of sending them. Nothing refused is acknowledged, so Pub/Sub
 * delivers it again later. {@link TableGates} holds one gate for each table the service writes.
 */
public final class FlowGate {
  /*
   * How does flow control work, and why?
   *
   * ClickHouse slows every INSERT into a partition that has more than parts_to_delay_insert active
   * parts, and refuses INSERTs beyond parts_to_throw_insert (code 252, too many parts). Each INSERT
   * makes a part, and merges remove them. The service acts before ClickHouse does. Under pressure
   * it sends fewer, larger INSERTs. Near the limit it answers 429, so that Pub/Sub backs off and
   * merges catch up. Nothing is lost, because a message answered 429 is delivered again.
   *
   * A worked timeline. The table has parts_to_delay_insert = 200 and parts_to_throw_insert = 400,
   * so its pressure is the parts in its fullest partition divided by 200 (TableLoad.pressure; its
   * max_parts_in_total is far off). The defaults hold: TABLE_WATCH_INTERVAL_MS 2000, and
   * MAX_INSERTS_PER_SECOND and TABLE_MAX_INSERTS_PER_SECOND both 500, so the pace without pressure
   * is 2 ms.
   *
   * At 0 s a reading finds 80 parts, a pressure of 0.40. That is below GATHER_FROM (0.5), so the
   * pace stays 2 ms and the next reading comes at 2 s.
   *
   * At 2 s there are 110 parts, 0.55. Above GATHER_FROM the pace doubles with every DOUBLING (0.05)
   * of pressure, so it is 4 ms. Readings now come every 500 ms, a quarter of the interval. The gate
   * also reads the table once more before every INSERT into it, so that instances racing toward
   * the limit see each other's parts. The batcher starts this table's INSERTs at least 4 ms apart,
   * so each batch holds at least 4 ms of arrivals: fewer, larger parts.
   *
   * At 2.5 s there are 120 parts, 0.60, and the pace is 8 ms. At 3 s there are 140 parts, 0.70,
   * and the pace is 32 ms.
   *
   * At 3.5 s there are 160 parts, 0.80, which is REFUSE_AT. The table refuses. Each new request for
   * it is answered 429 at once, and a batch already queued for it is answered 429 at the gate with
   * no INSERT sent. The batcher sees a pace of 0 for a refusing table (TableGates.paceNanos), so
   * those batches reach the gate at once instead of waiting out a pace. Pub/Sub delivers them again
   * after its backoff.
   *
   * At 4 s merges have brought the table down to 150 parts, 0.75. It still refuses: it resumes only
   * below RESUME_BELOW (0.7), so that it does not flap at the threshold.
   *
   * At 4.5 s there are 130 parts, 0.65. The table admits messages again at a pace of 16 ms. The
   * gate wakes the batcher (whenPaceFalls), so that no batch waits out an older, longer pace. Once
   * a reading finds fewer than 100 parts (below 0.5), the pace is 2 ms again and readings come
   * every 2 s.
   *
   * Two more signals. When the server's DelayedInserts or RejectedInserts counter grew between two
   * readings while the table is at GATHER_FROM or above, ClickHouse is already slowing or refusing
   * someone, so the table refuses at once. And TABLE_MAX_INSERTS_PER_SECOND is shared by the whole
   * fleet without any instance knowing the others. Say this instance sent 250 INSERTs a second
   * while the table got 1000 new parts a second from every writer, measured over at least
   * RATE_WINDOW_NANOS (1 s). Its allowance becomes 250 * 500 / 1000 = 125 INSERTs a second, a pace
   * of 8 ms. Every inserting instance does the same, so together they come down to 500.
   */

  private final TableName table;
  private final FlowControl control;
  private final Supplier<TableLoad> reader;
  private final Metrics metrics;
  private final long intervalNanos;
  private final AtomicLong inserts = new AtomicLong();
  private volatile Runnable paceFell = () -> {};
  private volatile TableLoad lastLoad;
  private volatile Throwable watchDeath;
  private volatile boolean readOnce;
  private boolean readable = true;

  /**
   * @param table the table watched, for the logs
   * @param reader reads the table's load (a query); may throw
   */
  public FlowGate(
      TableName table,
      FlowControl control,
      Supplier<TableLoad> reader,
      Metrics metrics,
      FlowPolicy policy) {
    this.table = table;
    this.control = control;
    this.reader = reader;
    this.metrics = metrics;
    this.intervalNanos = policy.watchInterval().toNanos();
  }

  /** What flow control does about the table now. */
  public FlowControl.State state() {
    return control.state();
  }

  /** The table's load as last read, or null when it could not be read. */
  public TableLoad lastLoad() {
    return lastLoad;
  }

  /**
   * The batcher to wake when the pace falls or the table starts or stops refusing, so that a paced
   * batch need not wait out the old pace.
   */
  public void whenPaceFalls(Runnable wake) {
    this.paceFell = wake;
  }

  /** Reads the table now, and again and again on {@code scheduler} until it shuts down. */
  public void start(ScheduledExecutorService scheduler) {
    watchAndSchedule(scheduler);
  }

  /** As {@link #start}, the first reading too on {@code scheduler}: the caller does not wait. */
  public void startLater(ScheduledExecutorService scheduler) {
    schedule(scheduler, 0);
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
    FlowControl.State before = control.state();
    try {
      watch();
    } catch (Throwable e) {
      if (loosened(before, unreadable(e))) {
        paceFell.run();
      }
      JsonLog.error("reading the target table's load failed", Map.of("table", table.toString()), e);
    } finally {
      schedule(scheduler);
    }
  }

  private void schedule(ScheduledExecutorService scheduler) {
    schedule(
        scheduler,
        control.state().pressure() >= FlowControl.GATHER_FROM ? intervalNanos / 4 : intervalNanos);
  }

  private void schedule(ScheduledExecutorService scheduler, long delay) {
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
    JsonLog.error("table watch stopped; flow control is off", Map.of("table", table.toString()), e);
  }

  /** False while new messages must be refused (429). */
  public boolean admits() {
    return !control.state().refusing();
  }

  /**
   * Lets a batch's messages for this table go to ClickHouse (counted as one INSERT), or answers
   * them 429 when the table is near its limit. The table is read first when it is under pressure,
   * or when it has not been read yet (a table the service has just started writing).
   *
   * @return true when they may be written
   */
  public boolean letThrough(List<PendingMessage> messages) {
    if (!readOnce) {
      readFirst();
    }
    if (control.state().pressure() >= FlowControl.GATHER_FROM) {
      watch();
    }
    if (control.state().refusing()) {
      metrics.overloaded.add(messages.size());
      metrics.throttled.add(messages.size());
      messages.forEach(message -> message.answer().complete(PushOutcome.OVERLOADED));
      return false;
    }
    inserts.incrementAndGet();
    return true;
  }

  /** The first reading, or waits for the one under way: a new table's first batch needs it. */
  private synchronized void readFirst() {
    if (!readOnce) {
      watch();
    }
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
        JsonLog.info("reading the target table's load again", Map.of("table", table.toString()));
      }
      logChange(before, after, load);
    } catch (RuntimeException e) {
      after = unreadable(e);
    } finally {
      readOnce = true;
    }
    if (loosened(before, after)) {
      paceFell.run();
    }
  }

  /**
   * The batcher may go sooner: the pace fell, or the table's refusing changed (a refusing table's
   * pace holds up no batch).
   */
  private static boolean loosened(FlowControl.State before, FlowControl.State after) {
    return after.paceNanos() < before.paceNanos() || after.refusing() != before.refusing();
  }

  /** A reading that failed counts as no pressure; logged once until a reading succeeds. */
  private synchronized FlowControl.State unreadable(Throwable e) {
    lastLoad = null;
    if (readable) {
      readable = false;
      JsonLog.warning(
          "cannot read the target table's load; flow control is off until it can",
          Map.of("table", table.toString(), "error", String.valueOf(e.getMessage())));
    }
    return control.unknown();
  }

  private void logChange(FlowControl.State before, FlowControl.State after, TableLoad load) {
    boolean gatheringBefore = before.pressure() >= FlowControl.GATHER_FROM;
    boolean gathering = after.pressure() >= FlowControl.GATHER_FROM;
    if (before.refusing() == after.refusing() && gatheringBefore == gathering) {
      return;
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("table", table.toString());
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
