package dev.pubsubclickhouse.function.ingest;

/**
 * When a table's next batch goes: the batcher's rule on its own, a pure function of one table's
 * queue, the instance's INSERTs and the clock, so that it can be tested without threads or sleeps.
 *
 * <ul>
 *   <li>No INSERT for the table in flight: the batch goes at once, unless requests are expected
 *       back. Pub/Sub push is a closed loop: it sends the next message of its window when it gets
 *       an answer. So when a batch of N requests has been answered, N requests are expected back
 *       (95% of them when N is large, so that a few stragglers do not hold up the rest), to any
 *       table (one subscription may feed several); the batch waits for them, but no longer than
 *       twice what they have been taking ({@link ReturnTime}), then goes with everything queued for
 *       its table. With one request in flight the one expected back is the one that arrives: a lone
 *       request waits for nothing but its own INSERT.
 *   <li>An INSERT for the table in flight: the next batch gathers until that INSERT ends; a second
 *       one starts beside it only for a batch that is full or overdue ({@code maxWait}), and not in
 *       the last free slot while a table with no INSERT in flight has messages waiting. Never more
 *       than {@code maxConcurrentInserts} are in flight at once, whatever their tables and whoever
 *       writes them (a flusher or a caller); another table's INSERT holds up a table only by its
 *       slot, and by the requests expected back when it ends.
 *   <li>INSERTs from this instance start at least {@code minIntervalNanos} apart: the INSERT-rate
 *       ceiling, and the lever flow control pulls to make batches larger.
 *   <li>{@code linger} (0 by default) makes every batch wait at least that long from its first
 *       message. Closing (shutdown): what is queued goes at once, paced by nothing.
 * </ul>
 *
 * Batch size follows load by itself: a batch holds the requests of the whole window when it is
 * busy, one when it is quiet, with no timer tuned for either.
 */
final class GroupCommitRule {
  /** Waits no longer than this before looking again (nothing scheduled; woken by a signal). */
  static final long WAIT_FOR_SIGNAL = Long.MAX_VALUE;

  private final BatchPolicy policy;

  GroupCommitRule(BatchPolicy policy) {
    this.policy = policy;
  }

  /**
   * One table as the rule sees it: its queued messages and its INSERTs in flight.
   *
   * @param messages messages queued for the table
   * @param rows the rows they count for, at least one for each message
   * @param bytes their encoded bytes
   * @param oldestEnqueuedNanos when the first of them arrived (meaningless when none is queued)
   * @param insertsInFlight the table's INSERTs that have started and not ended
   */
  record TableState(
      int messages, long rows, long bytes, long oldestEnqueuedNanos, int insertsInFlight) {}

  /**
   * The instance as the rule sees it: its INSERTs into every table, and the requests it expects
   * back.
   *
   * @param insertsInFlight the instance's INSERTs that have started and not ended
   * @param idleTableWaiting a table with no INSERT in flight has messages its pace lets go now. The
   *     last free slot is kept for that table, even while it lingers or waits for the requests
   *     expected back.
   * @param lastInsertStartNanos when the instance's last INSERT started, or {@link Long#MIN_VALUE}
   *     for never
   * @param expectedBack the requests the instance waits for before it sends an idle table's batch
   * @param closing the instance shuts down: what is queued goes at once, paced by nothing
   */
  record InstanceState(
      int insertsInFlight,
      boolean idleTableWaiting,
      long lastInsertStartNanos,
      ExpectedBack expectedBack,
      boolean closing) {}

  /**
   * The requests expected back, and until when they are waited for.
   *
   * @param requests requests still expected back from the batches answered since the instance's
   *     last INSERT started
   * @param lastInsertEndNanos when the instance's last INSERT ended
   * @param patienceNanos how long after that they are waited for ({@link ReturnTime#patience})
   */
  record ExpectedBack(int requests, long lastInsertEndNanos, long patienceNanos) {
    /** When the wait for them ends. */
    long untilNanos() {
      return lastInsertEndNanos + patienceNanos;
    }
  }

  /**
   * Send now, or look again after {@code waitNanos} ({@link #WAIT_FOR_SIGNAL}: only when something
   * changes).
   */
  record Decision(boolean send, long waitNanos) {
    static final Decision SEND = new Decision(true, 0);

    static Decision waitFor(long nanos) {
      return new Decision(false, nanos);
    }
  }

  /**
   * @param minIntervalNanos the least time between the starts of two INSERTs
   */
  Decision decide(TableState table, InstanceState instance, long now, long minIntervalNanos) {
    if (table.messages() == 0 || instance.insertsInFlight() >= policy.maxConcurrentInserts()) {
      return Decision.waitFor(WAIT_FOR_SIGNAL); // an INSERT that ends signals
    }
    if (instance.closing()) {
      return Decision.SEND;
    }
    if (table.insertsInFlight() > 0
        && instance.idleTableWaiting()
        && instance.insertsInFlight() + 1 >= policy.maxConcurrentInserts()) {
      return Decision.waitFor(WAIT_FOR_SIGNAL); // the last slot is the other tables'
    }
    long overdueAt = table.oldestEnqueuedNanos() + policy.maxWait().toNanos();
    boolean full = table.rows() >= policy.maxRows() || table.bytes() >= policy.maxBytes();
    long readyAt; // when this batch may go, before pacing
    if (full || overdueAt - now <= 0) {
      readyAt = now;
    } else if (table.insertsInFlight() == 0) {
      readyAt = table.oldestEnqueuedNanos() + policy.linger().toNanos();
      if (instance.expectedBack().requests() > 0) {
        long backBy = instance.expectedBack().untilNanos();
        if (backBy - readyAt > 0) {
          readyAt = backBy;
        }
      }
      if (readyAt - overdueAt > 0) {
        readyAt = overdueAt;
      }
    } else {
      // gathers until the table's INSERT in flight ends (a signal), or until it is overdue
      return Decision.waitFor(overdueAt - now);
    }
    long pacedAt = readyAt;
    if (instance.lastInsertStartNanos() != Long.MIN_VALUE) {
      long allowed = instance.lastInsertStartNanos() + minIntervalNanos;
      // nanoTime values are compared by their difference: they may wrap
      if (allowed - readyAt > 0) {
        pacedAt = allowed;
      }
    }
    if (pacedAt - now <= 0) {
      return Decision.SEND;
    }
    return Decision.waitFor(pacedAt - now);
  }
}
