package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * Gathers concurrent messages into batches, one table's messages and one INSERT per batch (group
 * commit). {@link GroupCommitRule} decides when each table's batch goes. Its design comment follows
 * a push window through a worked timeline.
 *
 * <p>{@link #offer} refuses a message at once when the messages waiting would hold more than {@code
 * maxPendingBytes} or number more than {@code maxPendingMessages}. When messages go to several
 * tables, a table held back by its pace may hold at most half of that. The caller answers 429.
 *
 * <p>The requests' own threads write the batches (leader and followers). When the message's batch
 * may go at once, the caller's thread writes it. A request that waits in {@link #answerOf} is
 * handed its batch when that batch becomes due as an INSERT ends or a message for another table
 * arrives: of the batch's messages whose threads wait, the one with the last answer deadline writes
 * it, and the others are its followers. No thread is woken for the batch besides the ones that wait
 * for their answers. Only a batch due by the clock (its patience or {@code maxWait} ran out, or its
 * pace) is written by one of the {@code maxConcurrentInserts} flusher threads.
 *
 * <p>INSERTs from the instance start at least {@code 1 / maxInsertsPerSecond} apart. Each table has
 * its own queue, its own INSERTs in flight and its own pace. Flow control stretches a table's pace
 * while ClickHouse is under pressure. So a table that is held back or slow to write holds up only
 * its own messages. When several tables may go, the one whose oldest message has waited longest
 * goes first. A table that has an INSERT in flight leaves the last free slot to a table that has
 * none.
 */
public final class GroupCommitBatcher implements AutoCloseable {
  /** One request in this many of an answered batch may come back late without being waited for. */
  private static final int STRAGGLERS_PER = 20;

  private final BatchPolicy policy;
  private final Consumer<List<PendingMessage>> writer;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  /** Each table's queue, by table (null: a test's message for no table); none is ever removed. */
  private final Map<TableName, TableQueue> tables = new HashMap<>();

  /** The same queues, to go through without an iterator. */
  private final List<TableQueue> tableQueues = new ArrayList<>();

  private final List<Thread> flushers = new ArrayList<>();
  private final GroupCommitRule rule;
  private final ToLongFunction<TableName> pace;
  private final boolean severalTables;
  private final long ceilingPaceNanos;
  private final LongSupplier clock;
  private final ReturnTime returnTime;
  private int queuedMessages;

  /**
   * Set by {@link #decide}: the table to go now, the one waiting longest of those that may. Null
   * when none may go now.
   */
  private TableQueue nextDue;

  private long heldBytes;
  private int heldMessages;
  private int insertsInFlight;
  private long lastInsertStartNanos = Long.MIN_VALUE;
  private long lastInsertEndNanos;

  /** How long the INSERT that ended last took, whichever table's. */
  private long lastInsertNanos;

  private int expectedBack;
  private boolean closing;
  private volatile Throwable flusherDeath;

  /** Paced by {@code policy.maxInsertsPerSecond()} alone. */
  public GroupCommitBatcher(BatchPolicy policy, Consumer<List<PendingMessage>> writer) {
    this(policy, table -> 0, false, writer);
  }

  /**
   * @param pace the least time between the starts of two INSERTs with messages for a table, in
   *     nanoseconds; asked whenever that table has messages queued
   * @param severalTables messages may go to more than one table. A table held back by its pace may
   *     then hold at most half of what may wait.
   * @param writer writes a batch and completes every message's answer; it must not throw
   */
  public GroupCommitBatcher(
      BatchPolicy policy,
      ToLongFunction<TableName> pace,
      boolean severalTables,
      Consumer<List<PendingMessage>> writer) {
    this(policy, pace, severalTables, System::nanoTime, writer);
  }

  /**
   * @param clock {@link System#nanoTime}, the clock of {@link PendingMessage#enqueuedNanos}
   */
  GroupCommitBatcher(
      BatchPolicy policy,
      ToLongFunction<TableName> pace,
      boolean severalTables,
      LongSupplier clock,
      Consumer<List<PendingMessage>> writer) {
    this.policy = policy;
    this.severalTables = severalTables;
    this.writer = writer;
    this.rule = new GroupCommitRule(policy);
    this.pace = pace;
    this.ceilingPaceNanos = TimeUnit.SECONDS.toNanos(1) / Math.max(1, policy.maxInsertsPerSecond());
    this.clock = clock;
    this.returnTime = new ReturnTime(policy.maxWait().toNanos());
    for (int i = 0; i < policy.maxConcurrentInserts(); i++) {
      Thread flusher = new Thread(this::flushLoop, "batch-flusher-" + i);
      flusher.setDaemon(true);
      flushers.add(flusher);
      flusher.start();
    }
  }

  /** Why a message was not admitted. */
  public enum Refusal {
    NONE,
    FULL,
    CLOSING
  }

  /**
   * Queues the message, or says why it cannot. When the message's batch may go at once, and no
   * other table's batch has waited longer, the caller's thread writes that batch before this
   * returns. At low load that spares two thread hand-offs per message: waking a flusher, and waking
   * the caller when its message is written.
   */
  public Refusal offer(PendingMessage message) {
    long footprint = message.footprintBytes();
    List<PendingMessage> lead = null;
    boolean ownTable = false;
    lock.lock();
    try {
      if (closing || flusherDeath != null) {
        return Refusal.CLOSING;
      }
      if (heldMessages >= policy.maxPendingMessages()
          || (heldMessages > 0 && heldBytes + footprint > policy.maxPendingBytes())) {
        return Refusal.FULL;
      }
      TableQueue tableQueue = queueOf(message.table());
      if (severalTables
          && tableQueue.holdsItsShare(footprint)
          && tableQueue.heldBack(pace, clock.getAsLong())) {
        return Refusal.FULL;
      }
      tableQueue.add(message);
      long rows = rowsOf(message);
      long bytes = message.encodedRows().length;
      queuedMessages++;
      heldBytes += footprint;
      heldMessages++;
      boolean lastExpected = expectedBack == 1;
      if (expectedBack > 0) {
        expectedBack--;
        if (lastExpected) {
          returnTime.allBack(clock.getAsLong() - lastInsertEndNanos, lastInsertNanos);
        }
      }
      if (insertsInFlight < policy.maxConcurrentInserts() && tableQueue.insertsInFlight == 0) {
        long now = clock.getAsLong();
        if (decide(now).send() && (nextDue == tableQueue || firstMayLead(nextDue))) {
          ownTable = nextDue == tableQueue;
          lead = take(nextDue, now);
        }
      }
      // Only its table's first message, the last one expected back or the message that fills its
      // table's batch can change what a waiting flusher decides (after a batch is taken, another
      // table may go too: see afterTaking), and only while another INSERT may start; the others
      // would wake it for nothing (a context switch each).
      if (lead != null) {
        afterTaking();
      } else if (insertsInFlight < policy.maxConcurrentInserts()
          && (tableQueue.messages.size() == 1 || lastExpected || filled(tableQueue, rows, bytes))) {
        changed.signal();
      }
    } finally {
      lock.unlock();
    }
    if (lead != null) {
      // This thread runs already: it writes its own table's batch. Another table's batch goes to
      // a thread that waits for one of its messages.
      if (ownTable || !leaderOf(lead).lead(lead)) {
        write(lead);
      }
    }
    return Refusal.NONE;
  }

  /**
   * Waits for the answer to {@code message}, offered by this thread after {@link
   * PendingMessage#waitsInBatcher}. Meanwhile this thread may be handed the batch its message is
   * in, when that batch becomes due as an INSERT ends or another message arrives (leader and
   * followers): it writes it, the others in it are answered by it, and no flusher is woken.
   */
  public PushOutcome answerOf(PendingMessage message) {
    boolean interrupted = false;
    try {
      while (true) {
        List<PendingMessage> batch = message.takeLead();
        if (batch != null) {
          // The others in the batch wait for this INSERT: an interrupt of this thread, which may
          // have come before it was handed the batch, must not fail it. It is kept for later.
          interrupted |= Thread.interrupted();
          write(batch);
        } else if (message.answer().isDone()) {
          if (message.resign()) {
            return message.answer().join(); // only ever completed with an outcome
          }
        } else {
          LockSupport.park(this);
          // The answer comes whatever happens (its deadline): an interrupt does not end the wait.
          interrupted |= Thread.interrupted();
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Under the lock: true when a thread waits for the table's first message and may write. */
  private static boolean firstMayLead(TableQueue table) {
    return table.messages.peekFirst().mayLead();
  }

  /**
   * Who writes a batch handed to a waiting thread: of the messages whose threads wait, the one with
   * the last answer deadline (the first message on a tie). The INSERT may run until the last
   * deadline of the batch's messages; a leader with an earlier one would hold its own answer, due
   * at its deadline, until the INSERT ends.
   */
  private static PendingMessage leaderOf(List<PendingMessage> batch) {
    PendingMessage leader = batch.get(0);
    for (int i = 1; i < batch.size(); i++) {
      PendingMessage message = batch.get(i);
      if (message.mayLead()
          && (!leader.mayLead()
              || message.waitedForUntilNanos() - leader.waitedForUntilNanos() > 0)) {
        leader = message;
      }
    }
    return leader;
  }

  /**
   * True when a message of {@code rows} and {@code bytes}, just queued, filled its table's queue.
   */
  private boolean filled(TableQueue table, long rows, long bytes) {
    return crossed(table.rows, rows, policy.maxRows())
        || crossed(table.bytes, bytes, policy.maxBytes());
  }

  private static boolean crossed(long total, long added, long threshold) {
    return total >= threshold && total - added < threshold;
  }

  /** Looks at the queues again: a table's pace may have changed. */
  public void wake() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Why a flusher thread stopped (an Error such as OutOfMemoryError), or empty while every flusher
   * runs. An instance with a stopped flusher can no longer write, and its liveness probe should say
   * so.
   */
  public Optional<Throwable> flusherDeath() {
    return Optional.ofNullable(flusherDeath);
  }

  /** Flushers waiting for a batch to be due: all of them when the batcher is idle (for tests). */
  int flushersWaiting() {
    lock.lock();
    try {
      return lock.getWaitQueueLength(changed);
    } finally {
      lock.unlock();
    }
  }

  /** Messages accepted and not yet answered. */
  public int waiting() {
    lock.lock();
    try {
      return heldMessages;
    } finally {
      lock.unlock();
    }
  }

  /** Memory held by messages accepted and not yet answered. */
  public long waitingBytes() {
    lock.lock();
    try {
      return heldBytes;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops admitting, sends what is queued at once, and waits up to {@code timeout} for every
   * accepted message to be answered.
   *
   * @return true when every message was answered in time
   */
  public boolean drain(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    lock.lock();
    try {
      closing = true;
      changed.signalAll();
      while (heldMessages > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() throws InterruptedException {
    drain(10, TimeUnit.SECONDS);
    stopFlushers();
  }

  /**
   * Stops admitting and ends the flusher threads without waiting for anything: after {@link
   * #drain}, or for a batcher that never held a message. A message still waiting is left to whoever
   * answers it at shutdown (its answer deadline).
   */
  public void stopFlushers() {
    lock.lock();
    try {
      closing = true;
    } finally {
      lock.unlock();
    }
    flushers.forEach(Thread::interrupt);
  }

  private void flushLoop() {
    try {
      while (true) {
        List<PendingMessage> batch;
        try {
          batch = nextBatch();
        } catch (InterruptedException e) {
          return;
        }
        write(batch);
      }
    } catch (Error e) {
      // This thread stops: refuse new messages at once and fail the liveness probe, so that
      // Cloud Run replaces the instance instead of it answering 503 until it is recycled.
      if (flusherDeath == null) {
        flusherDeath = e;
      }
      JsonLog.error("batch flusher stopped", Map.of(), e);
      throw e;
    }
  }

  /**
   * Writes a batch taken for an INSERT and makes sure every message in it is answered. An Error
   * (such as OutOfMemoryError) marks the batcher dead before the batch is answered, so that no new
   * message is admitted, and goes on up: a flusher stops, a caller that led gets it.
   */
  private void write(List<PendingMessage> batch) {
    long start = clock.getAsLong();
    try {
      writer.accept(batch);
    } catch (RuntimeException e) {
      JsonLog.error("batch writer failed", Map.of("messages", batch.size()), e);
    } catch (Error e) {
      if (flusherDeath == null) {
        flusherDeath = e;
      }
      throw e;
    } finally {
      // A writer that failed to answer leaves the message to Pub/Sub, never unanswered.
      batch.forEach(message -> message.answer().complete(PushOutcome.UNAVAILABLE));
      finished(batch, start);
    }
  }

  /** Waits until a batch is due, and takes it. */
  private List<PendingMessage> nextBatch() throws InterruptedException {
    lock.lock();
    try {
      while (true) {
        long now = clock.getAsLong();
        GroupCommitRule.Decision decision = decide(now);
        if (decision.send()) {
          List<PendingMessage> batch = take(nextDue, now);
          afterTaking();
          return batch;
        }
        long wait = decision.waitNanos();
        if (wait == GroupCommitRule.WAIT_FOR_SIGNAL) {
          changed.await();
        } else {
          changed.awaitNanos(wait);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Under the lock: whether a batch goes now. The rule is asked about each table whose pace allows
   * an INSERT now, and the table to go first is left in {@link #nextDue}. When none goes, the wait
   * ends when the rule says or when the next table held back by its pace may go.
   */
  private GroupCommitRule.Decision decide(long now) {
    boolean idleTableWaiting = false;
    for (int i = 0; i < tableQueues.size(); i++) {
      TableQueue table = tableQueues.get(i);
      if (!table.messages.isEmpty()) {
        table.paceAllowsAt = closing ? now : table.dueAt(pace, now);
        idleTableWaiting |= table.insertsInFlight == 0 && table.paceAllowsAt - now <= 0;
      }
    }
    GroupCommitRule.InstanceState instance =
        new GroupCommitRule.InstanceState(
            insertsInFlight,
            idleTableWaiting,
            lastInsertStartNanos,
            new GroupCommitRule.ExpectedBack(
                expectedBack, lastInsertEndNanos, returnTime.patience(lastInsertNanos)),
            closing);
    nextDue = null;
    long wait = GroupCommitRule.WAIT_FOR_SIGNAL;
    for (int i = 0; i < tableQueues.size(); i++) {
      wait = Math.min(wait, decideFor(tableQueues.get(i), now, instance));
    }
    return nextDue != null ? GroupCommitRule.Decision.SEND : GroupCommitRule.Decision.waitFor(wait);
  }

  /**
   * Under the lock: makes the table {@link #nextDue} when it may go now and its oldest message has
   * waited longer than the one there.
   *
   * @return else how long until it should be looked at again ({@link
   *     GroupCommitRule#WAIT_FOR_SIGNAL}: only when something changes)
   */
  private long decideFor(TableQueue table, long now, GroupCommitRule.InstanceState instance) {
    if (table.messages.isEmpty()) {
      return GroupCommitRule.WAIT_FOR_SIGNAL;
    }
    if (table.paceAllowsAt - now > 0) {
      return table.paceAllowsAt - now;
    }
    GroupCommitRule.Decision decision =
        rule.decide(
            new GroupCommitRule.TableState(
                table.messages.size(),
                table.rows,
                table.bytes,
                table.messages.peekFirst().enqueuedNanos(),
                table.insertsInFlight),
            instance,
            now,
            ceilingPaceNanos);
    if (!decision.send()) {
      return decision.waitNanos();
    }
    if (nextDue == null
        || table.messages.peekFirst().enqueuedNanos() - nextDue.messages.peekFirst().enqueuedNanos()
            < 0) {
      nextDue = table;
    }
    return GroupCommitRule.WAIT_FOR_SIGNAL;
  }

  /**
   * Under the lock, right after {@link #decide} made {@code from} the {@link #nextDue}: its batch,
   * taken for an INSERT.
   */
  private List<PendingMessage> take(TableQueue from, long now) {
    if (expectedBack > 0
        && from.insertsInFlight == 0
        && now - lastInsertEndNanos >= returnTime.patience(lastInsertNanos)) {
      returnTime.gaveUp(now - lastInsertEndNanos, lastInsertNanos);
    }
    List<PendingMessage> batch = new ArrayList<>(Math.min(from.messages.size(), policy.maxRows()));
    long rows = 0;
    long bytes = 0;
    while (!from.messages.isEmpty()) {
      PendingMessage next = from.messages.peekFirst();
      long nextRows = rowsOf(next);
      if (!batch.isEmpty()
          && (rows + nextRows > policy.maxRows()
              || bytes + next.encodedRows().length > policy.maxBytes())) {
        break;
      }
      batch.add(from.poll());
      next.takenAt(now);
      rows += nextRows;
      bytes += next.encodedRows().length;
    }
    queuedMessages -= batch.size();
    insertsInFlight++;
    from.insertsInFlight++;
    lastInsertStartNanos = now;
    from.lastInsertStartNanos = now;
    expectedBack = 0; // who has not come back by now is not waited for again
    return batch;
  }

  /**
   * Under the lock, after a batch is taken: another table may go beside it (it was due too, or it
   * waited for the requests expected back, which taking a batch stops waiting for), so a flusher
   * looks while messages are queued and another INSERT may start.
   */
  private void afterTaking() {
    if (queuedMessages > 0 && insertsInFlight < policy.maxConcurrentInserts()) {
      changed.signal();
    }
  }

  /** The rows a message counts for toward a full batch: at least one, whatever it carries. */
  static long rowsOf(PendingMessage message) {
    return Math.max(1, message.rowCount());
  }

  private TableQueue queueOf(TableName table) {
    TableQueue queue = tables.get(table);
    if (queue == null) {
      queue = new TableQueue(table, policy);
      tables.put(table, queue);
      tableQueues.add(queue);
    }
    return queue;
  }

  private void finished(List<PendingMessage> batch, long start) {
    List<PendingMessage> next = null;
    lock.lock();
    try {
      TableQueue table = tables.get(batch.get(0).table());
      insertsInFlight--;
      table.insertsInFlight--;
      lastInsertEndNanos = clock.getAsLong();
      lastInsertNanos = lastInsertEndNanos - start;
      // All of a small batch, 95% of a large one: a few stragglers do not hold up the rest.
      expectedBack += batch.size() - batch.size() / STRAGGLERS_PER;
      for (PendingMessage message : batch) {
        heldBytes -= message.footprintBytes();
        heldMessages--;
      }
      // A batch that may go now, whose first message's thread waits, goes to a waiting thread
      // (see leaderOf). Else who waits for an INSERT to end: a flusher holding a queued batch, and
      // drain(). A flusher with nothing queued would wake for nothing (at one request in flight,
      // every INSERT).
      if (queuedMessages > 0 && !closing) {
        long now = clock.getAsLong();
        if (decide(now).send() && firstMayLead(nextDue)) {
          next = take(nextDue, now);
          afterTaking();
        }
      }
      if (next == null && (queuedMessages > 0 || closing)) {
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
    if (next != null && !leaderOf(next).lead(next)) {
      write(next);
    }
  }
}
