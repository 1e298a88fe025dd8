package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.function.observability.JsonLog;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Gathers concurrent messages into batches, one INSERT each (group commit). A batch goes when it is
 * full, when its oldest message has waited {@code maxWait}, or, while no INSERT is in flight, once
 * no new message has arrived for {@code linger}; while an INSERT is in flight, new messages gather
 * for the next one. Pub/Sub push is a closed loop (a window of requests, each waiting for its
 * answer), so arrivals pause once every request in the window waits: the batch then takes the whole
 * window. One message at a time when it is quiet, hundreds when it is busy.
 *
 * <p>Admission is bounded by memory and count: beyond them {@link #offer} refuses at once and the
 * caller answers 429. The INSERT rate is bounded by {@code maxInsertsPerSecond}.
 */
public final class GroupCommitBatcher implements AutoCloseable {
  private final BatchPolicy policy;
  private final Consumer<List<PendingMessage>> writer;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<PendingMessage> queue = new ArrayDeque<>();
  private final List<Thread> flushers = new ArrayList<>();
  private final long minInsertIntervalNanos;
  private long queuedRows;
  private long queuedBytes;
  private long heldBytes;
  private int heldMessages;
  private int insertsInFlight;
  private long nextInsertAllowedNanos;
  private boolean closing;
  private volatile Throwable flusherDeath;

  /**
   * @param writer writes a batch and completes every message's answer; it must not throw
   */
  public GroupCommitBatcher(BatchPolicy policy, Consumer<List<PendingMessage>> writer) {
    this.policy = policy;
    this.writer = writer;
    this.minInsertIntervalNanos =
        TimeUnit.SECONDS.toNanos(1) / Math.max(1, policy.maxInsertsPerSecond());
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

  /** Queues the message, or says why not. */
  public Refusal offer(PendingMessage message) {
    long footprint = message.footprintBytes();
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
      queuedRows += Math.max(1, message.rowCount());
      queuedBytes += message.rows().length;
      heldBytes += footprint;
      heldMessages++;
      changed.signal();
      return Refusal.NONE;
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
        try {
          writer.accept(batch);
        } catch (RuntimeException e) {
          JsonLog.error("batch writer failed", Map.of("messages", batch.size()), e);
        } catch (Error e) {
          flusherDeath = e; // before the batch is answered, so that no new message is admitted
          throw e;
        } finally {
          // A writer that failed to answer leaves the message to Pub/Sub, never unanswered.
          batch.forEach(message -> message.answer().complete(PushOutcome.UNAVAILABLE));
          finished(batch);
        }
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

  /** Waits until a batch is due, and takes it. */
  private List<PendingMessage> nextBatch() throws InterruptedException {
    lock.lock();
    try {
      while (true) {
        if (queue.isEmpty()) {
          changed.await();
          continue;
        }
        long now = System.nanoTime();
        long waited = now - queue.peekFirst().enqueuedNanos();
        long quiet = now - queue.peekLast().enqueuedNanos();
        boolean full = queuedRows >= policy.maxRows() || queuedBytes >= policy.maxBytes();
        boolean idle = insertsInFlight == 0;
        boolean due =
            closing
                || full
                || waited >= policy.maxWait().toNanos()
                || (idle && quiet >= policy.linger().toNanos());
        if (due && now >= nextInsertAllowedNanos) {
          insertsInFlight++;
          nextInsertAllowedNanos = now + minInsertIntervalNanos;
          return takeBatch();
        }
        long until =
            due
                ? nextInsertAllowedNanos - now
                : Math.min(
                    policy.maxWait().toNanos() - waited,
                    idle ? policy.linger().toNanos() - quiet : Long.MAX_VALUE);
        changed.awaitNanos(Math.max(until, 10_000));
      }
    } finally {
      lock.unlock();
    }
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
      rows += nextRows;
      bytes += next.rows().length;
    }
    queuedRows -= rows;
    queuedBytes -= bytes;
    return batch;
  }

  private void finished(List<PendingMessage> batch) {
    lock.lock();
    try {
      insertsInFlight--;
      for (PendingMessage message : batch) {
        heldBytes -= message.footprintBytes();
        heldMessages--;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
