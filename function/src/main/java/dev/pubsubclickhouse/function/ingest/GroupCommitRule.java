package dev.pubsubclickhouse.function.ingest;

/**
 * Decides when a table's next batch goes. It is a pure function of one table's queue, the
 * instance's INSERTs and the clock, so it can be tested without threads or sleeps. {@link
 * GroupCommitBatcher} asks it about every table that has messages queued and whose pace allows an
 * INSERT now.
 *
 * <p>When no INSERT into the table is in flight, its batch goes at once, unless the instance
 * expects requests back. Then the batch waits for them, until their patience or {@code maxWait}
 * runs out. While an INSERT into the table is in flight, the next batch gathers. It goes beside
 * that INSERT only when it is full or overdue ({@code maxWait}), and never in the last free slot
 * while another table with no INSERT in flight has messages that may go. INSERTs start at least
 * {@code minIntervalNanos} apart. A {@code linger} above 0 makes every batch wait that long from
 * its first message. While the instance closes, what is queued goes at once.
 */
final class GroupCommitRule {
  /*
   * How is group commit designed, and why?
   *
   * Pub/Sub push is a closed loop. A subscription keeps a window of requests outstanding, and it
   * sends the next message only when it gets an answer. So the requests that arrive while an
   * INSERT is in flight are the next batch. When that INSERT ends, its answers let Pub/Sub send as
   * many new requests, and these arrive soon after. The rule waits a little for them. No timer is
   * tuned for a load: a batch holds one request when traffic is quiet and most of the window when
   * it is busy.
   *
   * A worked timeline with the defaults: BATCH_LINGER_MS 0, BATCH_MAX_WAIT_MS 1000,
   * MAX_CONCURRENT_INSERTS 2, and MAX_INSERTS_PER_SECOND 500, so INSERTs start at least 2 ms
   * apart. Every INSERT here takes 40 ms and every request carries one row for the same table.
   *
   * At 0 ms request A arrives at an idle instance. Nothing is queued, no INSERT is in flight, and
   * no request is expected back, so the batch [A] goes at once. A's own request thread takes it and
   * runs the INSERT. No flusher thread is woken.
   *
   * At 2, 4 and 6 ms requests B, C and D arrive. The table's INSERT is in flight, so they gather.
   * A second INSERT would start beside the first only for a full batch (10,000 rows by
   * BATCH_MAX_ROWS, or 16 MiB by BATCH_MAX_BYTES) or an overdue one. B would be overdue at 1002 ms.
   *
   * At 40 ms A's INSERT ends and A is answered. Pub/Sub will send the next message of its window in
   * reply, so one request is expected back. After a batch of n requests, n - n / 20 are expected
   * back (GroupCommitBatcher.STRAGGLERS_PER): a few stragglers do not hold up the rest. Nothing has
   * been learnt yet about how long requests take to come back, so the patience is twice the
   * INSERT, 80 ms (ReturnTime.patience). The batch [B, C, D] waits until 120 ms at most.
   *
   * At 41 ms request E arrives. It is the one expected back, so ReturnTime learns that requests
   * come back 1 ms after an INSERT ends. Nothing else is awaited. The last INSERT started 41 ms
   * ago, so the 2 ms pace is long over. The batch [B, C, D, E] goes at once, and E's thread runs
   * it. Requests that arrive during this INSERT gather as B, C and D did.
   *
   * At 81 ms that INSERT ends, and four requests are expected back. The patience is 80 ms again:
   * twice the larger of the 1 ms learnt and the 40 ms INSERT. Say three come back and the fourth
   * does not, because the subscription's window has shrunk. At 161 ms the batch goes without it,
   * and ReturnTime learns that requests may take 80 ms. The next patience is 160 ms. It never
   * exceeds BATCH_MAX_WAIT_MS.
   *
   * With several tables, each table has its own queue, its own INSERTs in flight and its own pace.
   * A request to any table counts as one expected back, since one subscription may feed several
   * tables. All INSERTs count toward MAX_CONCURRENT_INSERTS. Say an INSERT into table T and one
   * into table U are in flight. U's ends while U has messages queued that its pace lets go, and T's
   * next batch is overdue. T already has an INSERT in flight, so its batch does not take the last
   * free slot. That slot is U's, even while U's batch waits for the requests expected back. T's
   * batch looks again when an INSERT ends.
   */

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
