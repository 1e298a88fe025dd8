package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.function.observability.JsonLog;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * Gathers concurrent messages into batches, one INSERT each (group commit), by {@link
 * GroupCommitRule}: when no INSERT is in flight a batch goes at once; while one is in flight, new
 * messages gather for the next. Pub/Sub push is a closed loop (a window of requests, each waiting
 * for its answer), so a batch holds what arrived during the previous INSERT: one message when it is
 * quiet, hundreds when it is busy, with no timer in between.
 *
 * <p>Admission is bounded by memory and count: beyond them {@link #offer} refuses at once and the
 * caller answers 429. INSERTs start at least {@code pace} apart (the per-instance INSERT-rate
 * ceiling, stretched by flow control when ClickHouse is under pressure).
 */
public final class GroupCommitBatcher implements AutoCloseable {
  /** One request in this many of an answered batch may come back late without being waited for. */
  private static final int STRAGGLERS_PER = 20;

  private final BatchPolicy policy;
  private final Consumer<List<PendingMessage>> writer;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<PendingMessage> queue = new ArrayDeque<>();

  /** How many queued messages go to each table (null: a test's message for no table). */
  private final Map<TableName, Integer> queuedTables = new HashMap<>();

  private final List<Thread> flushers = new ArrayList<>();
  private final GroupCommitRule rule;
  private final ToLongFunction<Set<TableName>> pace;
  private final LongSupplier clock;
  private final ReturnTime returnTime;
  private long queuedRows;
  private long queuedBytes;
  private long heldBytes;
  private int heldMessages;
  private int insertsInFlight;
  private long lastInsertStartNanos = Long.MIN_VALUE;
  private long lastInsertEndNanos;
  private long lastInsertNanos;
  private int expectedBack;
  private boolean closing;
  private volatile Throwable flusherDeath;

  /** Paced by {@code policy.maxInsertsPerSecond()} alone. */
  public GroupCommitBatcher(BatchPolicy policy, Consumer<List<PendingMessage>> writer) {
    this(policy, fixedPace(policy), writer);
  }

  /**
   * @param pace the least time between the starts of two INSERTs, in nanoseconds, for a batch with
   *     messages for these tables; asked before every INSERT
   * @param writer writes a batch and completes every message's answer; it must not throw
   */
  public GroupCommitBatcher(
      BatchPolicy policy,
      ToLongFunction<Set<TableName>> pace,
      Consumer<List<PendingMessage>> writer) {
    this(policy, pace, System::nanoTime, writer);
  }

  /**
   * @param clock {@link System#nanoTime}, the clock of {@link PendingMessage#enqueuedNanos}
   */
  GroupCommitBatcher(
      BatchPolicy policy,
      ToLongFunction<Set<TableName>> pace,
      LongSupplier clock,
      Consumer<List<PendingMessage>> writer) {
    this.policy = policy;
    this.writer = writer;
    this.rule = new GroupCommitRule(policy);
    this.pace = pace;
    this.clock = clock;
    this.returnTime = new ReturnTime(policy.maxWait().toNanos());
    for (int i = 0; i < policy.maxConcurrentInserts(); i++) {
      Thread flusher = new Thread(this::flushLoop, "batch-flusher-" + i);
      flusher.setDaemon(true);
      flushers.add(flusher);
      flusher.start();
    }
  }

  /** The interval {@code policy.maxInsertsPerSecond()} sets. */
  private static ToLongFunction<Set<TableName>> fixedPace(BatchPolicy policy) {
    long interval = TimeUnit.SECONDS.toNanos(1) / Math.max(1, policy.maxInsertsPerSecond());
    return tables -> interval;
  }

  /** Why a message was not admitted. */
  public enum Refusal {
    NONE,
    FULL,
    CLOSING
  }

  /**
   * Queues the message, or says why not. When no INSERT is in flight and the batch may go at once,
   * the caller writes it itself before this returns (its own message among it): at low load that
   * spares two thread hand-offs per message, the flusher's wake-up and the caller's.
   */
  public Refusal offer(PendingMessage message) {
    long footprint = message.footprintBytes();
    List<PendingMessage> lead = null;
    lock.lock();
    try {
      if (closing || flusherDeath != null) {
        return Refusal.CLOSING;
      }
      if (heldMessages >= policy.maxPendingMessages()
          || (heldMessages > 0 && heldBytes + footprint > policy.maxPendingBytes())) {
        return Refusal.FULL;
      }
      queue.addLast(message);
      queuedTables.merge(message.table(), 1, Integer::sum);
      queuedRows += Math.max(1, message.rowCount());
      queuedBytes += message.rows().length;
      heldBytes += footprint;
      heldMessages++;
      boolean lastExpected = expectedBack == 1;
      if (expectedBack > 0) {
        expectedBack--;
        if (lastExpected) {
          returnTime.allBack(clock.getAsLong() - lastInsertEndNanos);
        }
      }
      if (insertsInFlight == 0) {
        lead = takeIfDue(clock.getAsLong());
      }
      // Only the first message, the last one expected back or a full batch can change what a
      // waiting flusher decides; the others would wake it for nothing (a context switch each).
      if (lead == null
          && (queue.size() == 1
              || lastExpected
              || queuedRows >= policy.maxRows()
              || queuedBytes >= policy.maxBytes())) {
        changed.signal();
      }
    } finally {
      lock.unlock();
    }
    if (lead != null) {
      write(lead);
    }
    return Refusal.NONE;
  }

  /** Looks at the queue again: the pace may have changed. */
  public void wake() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Empty while every flusher runs; else why one stopped (an Error such as OutOfMemoryError): the
   * instance can no longer write, and its liveness probe should say so.
   */
  public Optional<Throwable> flusherDeath() {
    return Optional.ofNullable(flusherDeath);
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
        List<PendingMessage> batch = takeIfDue(now);
        if (batch != null) {
          return batch;
        }
        long wait = decide(now).waitNanos();
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

  /** Under the lock: the batch, taken for an INSERT, when the rule says it goes now; else null. */
  private List<PendingMessage> takeIfDue(long now) {
    long patience = returnTime.patience(lastInsertNanos);
    if (!decide(now).send()) {
      return null;
    }
    if (expectedBack > 0 && insertsInFlight == 0 && now - lastInsertEndNanos >= patience) {
      returnTime.gaveUp(now - lastInsertEndNanos);
    }
    insertsInFlight++;
    lastInsertStartNanos = now;
    expectedBack = 0; // who has not come back by now is not waited for again
    return takeBatch();
  }

  private GroupCommitRule.Decision decide(long now) {
    return rule.decide(
        new GroupCommitRule.Queue(
            queue.size(),
            queuedRows,
            queuedBytes,
            queue.isEmpty() ? now : queue.peekFirst().enqueuedNanos(),
            insertsInFlight,
            lastInsertStartNanos,
            expectedBack,
            lastInsertEndNanos,
            returnTime.patience(lastInsertNanos),
            closing),
        now,
        queue.isEmpty() ? 0 : pace.applyAsLong(queuedTables.keySet()));
  }

  private List<PendingMessage> takeBatch() {
    List<PendingMessage> batch = new ArrayList<>();
    long rows = 0;
    long bytes = 0;
    while (!queue.isEmpty()) {
      PendingMessage next = queue.peekFirst();
      long nextRows = Math.max(1, next.rowCount());
      if (!batch.isEmpty()
          && (rows + nextRows > policy.maxRows()
              || bytes + next.rows().length > policy.maxBytes())) {
        break;
      }
      batch.add(queue.pollFirst());
      queuedTables.computeIfPresent(next.table(), (table, count) -> count == 1 ? null : count - 1);
      rows += nextRows;
      bytes += next.rows().length;
    }
    queuedRows -= rows;
    queuedBytes -= bytes;
    return batch;
  }

  private void finished(List<PendingMessage> batch, long start) {
    lock.lock();
    try {
      insertsInFlight--;
      lastInsertEndNanos = clock.getAsLong();
      lastInsertNanos = lastInsertEndNanos - start;
      // All of a small batch, 95% of a large one: a few stragglers do not hold up the rest.
      expectedBack += batch.size() - batch.size() / STRAGGLERS_PER;
      for (PendingMessage message : batch) {
        heldBytes -= message.footprintBytes();
        heldMessages--;
      }
      // Who waits for an INSERT to end: a flusher holding a queued batch, and drain(). A flusher
      // with nothing queued would wake for nothing (at one request in flight, every INSERT).
      if (!queue.isEmpty() || closing) {
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }
}
