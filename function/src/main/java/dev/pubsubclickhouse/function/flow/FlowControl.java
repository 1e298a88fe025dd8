package dev.pubsubclickhouse.function.flow;

import java.util.concurrent.TimeUnit;

/**
 * What an instance does about a table's load. It is a pure function of what ClickHouse said, with
 * no threads and no queries, so it can be tested reading by reading. {@link FlowGate} feeds it
 * readings, and its design comment follows one table through a worked timeline.
 *
 * <p>Part pressure ({@link TableLoad#pressure()}) is 1.0 where ClickHouse starts to slow INSERTs.
 * Below {@value #GATHER_FROM} nothing changes. Above it, the least time between two INSERTs doubles
 * with every further {@value #DOUBLING}. From {@value #REFUSE_AT} the instance refuses new messages
 * (429) and sends no INSERT, until the pressure is below {@value #RESUME_BELOW} again. It refuses
 * at once when the server's {@code DelayedInserts} or {@code RejectedInserts} grew while the table
 * is at {@value #GATHER_FROM} or above.
 *
 * <p>The table budget, {@code tableMaxInsertsPerSecond}, caps the new parts a second from every
 * writer together. When the table gets more, an instance that is inserting scales its own rate by
 * budget / table rate. An idle instance keeps its allowance. When the table gets less, allowances
 * grow back in proportion, never beyond the instance's ceiling or the budget. No instance needs to
 * know how many others there are.
 */
public final class FlowControl {
  static final double GATHER_FROM = 0.5;
  static final double DOUBLING = 0.05;
  static final double REFUSE_AT = 0.8;
  static final double RESUME_BELOW = 0.7;

  /** The smallest share an inserting instance is cut to, in INSERTs per second. */
  static final double MIN_ALLOWANCE = 0.1;

  /** Rates are measured over at least this long (readings come faster under pressure). */
  static final long RATE_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * What the instance does now.
   *
   * @param pressure the table's part pressure, 1.0 where ClickHouse slows INSERTs
   * @param refusing new messages get 429 and no INSERT is sent
   * @param paceNanos the least time between the starts of two INSERTs
   * @param allowance this instance's share of the table budget, INSERTs per second
   * @param tableInsertsPerSecond new parts per second in the table, from every writer (-1: not
   *     measured yet)
   */
  public record State(
      double pressure,
      boolean refusing,
      long paceNanos,
      double allowance,
      double tableInsertsPerSecond) {}

  private final double ceiling;
  private final double budget;
  private final long maxPaceNanos;
  private TableLoad previous;
  private TableLoad rateFrom;
  private long rateFromNanos;
  private long rateFromOwnInserts;

  /** The window now open began at a reading that fell: it measures no rate either. */
  private boolean skipWindow;

  private double allowance;
  private boolean refusing;
  private volatile State state;

  /**
   * @param instanceMaxInsertsPerSecond this instance's own ceiling
   * @param tableMaxInsertsPerSecond the whole fleet's, as ClickHouse counts new parts (0: none)
   * @param maxPaceNanos the pace never exceeds this, so a paced message is still answered in time
   */
  public FlowControl(
      int instanceMaxInsertsPerSecond, int tableMaxInsertsPerSecond, long maxPaceNanos) {
    this.ceiling = Math.max(1, instanceMaxInsertsPerSecond);
    this.budget = Math.max(0, tableMaxInsertsPerSecond);
    this.maxPaceNanos = maxPaceNanos;
    this.allowance = budget > 0 ? Math.min(ceiling, budget) : ceiling;
    this.state = decide(0, -1);
  }

  public State state() {
    return state;
  }

  /**
   * Takes a reading of the table.
   *
   * @param ownInserts INSERTs this instance has sent so far
   * @param now {@link System#nanoTime} when it was read
   */
  public synchronized State observe(TableLoad load, long ownInserts, long now) {
    double pressure = load.pressure();
    if (previous != null
        && pressure >= GATHER_FROM
        && (load.delayedInserts() > previous.delayedInserts()
            || load.rejectedInserts() > previous.rejectedInserts())) {
      pressure = Math.max(pressure, REFUSE_AT);
    }
    previous = load;
    double tableRate = state.tableInsertsPerSecond();
    if (rateFrom == null) {
      moveRateWindow(load, ownInserts, now);
    } else if (load.activeParts() == 0 || load.blocksWritten() < rateFrom.blocksWritten()) {
      // Parts were dropped (TRUNCATE, DROP PARTITION, a TTL) or there are none: the reading fell
      // below the table's counter, and the next part written carries that counter, however far
      // it has gone. Neither this window nor the next one is a rate; the last one measured stays.
      moveRateWindow(load, ownInserts, now);
      skipWindow = true;
    } else if (skipWindow) {
      skipWindow = false;
      moveRateWindow(load, ownInserts, now);
    } else if (now - rateFromNanos >= RATE_WINDOW_NANOS) {
      double seconds = (now - rateFromNanos) / 1e9;
      tableRate = (load.blocksWritten() - rateFrom.blocksWritten()) / seconds;
      share(tableRate, (ownInserts - rateFromOwnInserts) / seconds);
      moveRateWindow(load, ownInserts, now);
    }
    refusing = refusing ? pressure >= RESUME_BELOW : pressure >= REFUSE_AT;
    state = decide(pressure, tableRate);
    return state;
  }

  /** The table could not be read: act as if there were no pressure until it can be again. */
  public synchronized State unknown() {
    previous = null;
    rateFrom = null;
    skipWindow = false;
    refusing = false;
    state = decide(0, -1);
    return state;
  }

  private void moveRateWindow(TableLoad load, long ownInserts, long now) {
    rateFrom = load;
    rateFromNanos = now;
    rateFromOwnInserts = ownInserts;
  }

  private void share(double tableRate, double ownRate) {
    if (budget <= 0) {
      return;
    }
    double most = Math.min(ceiling, budget);
    if (tableRate <= budget) {
      double grown = tableRate > 0 && ownRate > 0 ? ownRate * budget / tableRate : most;
      allowance = Math.min(most, Math.max(allowance, grown));
    } else if (ownRate > 0) {
      allowance = Math.max(MIN_ALLOWANCE, Math.min(most, ownRate * budget / tableRate));
    }
  }

  private State decide(double pressure, double tableRate) {
    double interval = TimeUnit.SECONDS.toNanos(1) / allowance;
    if (pressure >= GATHER_FROM) {
      interval *= Math.pow(2, Math.min(30, (pressure - GATHER_FROM) / DOUBLING));
    }
    long pace = Math.round(Math.min(maxPaceNanos, interval));
    return new State(pressure, refusing, pace, allowance, tableRate);
  }
}
