package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.insert.WaitedFor;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.messages.MessageEncoder;
import dev.pubsubclickhouse.messages.MessageRecord;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.payload.PayloadFormat;
import dev.pubsubclickhouse.messages.tables.Destination;
import dev.pubsubclickhouse.messages.tables.Route;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.concurrent.locks.LockSupport;

/**
 * A message waiting in the batcher. It holds the table it goes to, its rows already encoded on the
 * request's thread, and the answer the request waits for. The batch writer encodes it again only
 * when the table's schema changed.
 */
public final class PendingMessage extends MessageRecord {
  private final Route route;
  private final long enqueuedNanos;
  private final Answer answer = new Answer();
  private final long footprintBytes;
  private long answerDeadlineNanos = WaitedFor.NO_END;
  private volatile String reason;

  /** When its batch was taken for an INSERT (System.nanoTime()); 0 until then. */
  private volatile long takenNanos;

  /**
   * A batch handed to the waiting thread to write, or {@link #RESIGNED} once that thread has
   * stopped waiting (no batch may be handed to it after that).
   */
  private volatile List<PendingMessage> toLead;

  private static final List<PendingMessage> RESIGNED = List.of();

  @SuppressWarnings("rawtypes")
  private static final AtomicReferenceFieldUpdater<PendingMessage, List> TO_LEAD =
      AtomicReferenceFieldUpdater.newUpdater(PendingMessage.class, List.class, "toLead");

  /**
   * The answer. Its completion also wakes the thread that waits for it in {@link
   * GroupCommitBatcher#answerOf}, which parks rather than joins so that a batch handed to it wakes
   * it too.
   */
  private static final class Answer extends CompletableFuture<PushOutcome> {
    private volatile Thread waiter;

    /** When it was completed (System.nanoTime()), for the request's phases. */
    private volatile long completedNanos;

    // Every answer is completed more than once (by its batch's writer, then as a safety net), the
    // later times after its waiter may have gone on to another request. Only the completion that
    // answers wakes the waiter: a later wake-up would be a spurious one for whatever that thread
    // parks on next.
    @Override
    public boolean complete(PushOutcome outcome) {
      if (isDone()) {
        return false;
      }
      completedNanos = System.nanoTime(); // before the answer, so that its waiter sees it
      boolean completed = super.complete(outcome);
      if (completed) {
        wake();
      }
      return completed;
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
      boolean completed = super.completeExceptionally(failure);
      if (completed) {
        wake();
      }
      return completed;
    }

    private void wake() {
      wakeUnlessCurrent(waiter);
    }
  }

  /**
   * @param format how its data is read; null when the message goes to no table (its rows are then
   *     the route's rejection, whatever the schema)
   */
  PendingMessage(
      PubSubMessage message,
      MessageEncoder encoder,
      Route route,
      PayloadFormat format,
      TargetTable.Snapshot schema,
      EncodedRows encoded) {
    super(message, encoder, format);
    useRows(schema, encoded);
    this.route = route;
    this.enqueuedNanos = System.nanoTime();
    this.footprintBytes = encoded.length() + (long) message.data().length + 128;
  }

  /**
   * A message encoded already, for one schema that never changes, that arrived at {@code
   * enqueuedNanos} on the batcher's clock (the batcher's tests).
   */
  PendingMessage(PubSubMessage message, EncodedRows encoded, long enqueuedNanos) {
    super(message, null, null);
    useRows(null, encoded);
    this.route = null;
    this.enqueuedNanos = enqueuedNanos;
    this.footprintBytes = encoded.length() + (long) message.data().length + 128;
  }

  /** The table whose writer takes the message (the default table's for a dead letter). */
  Destination destination() {
    return route.destination();
  }

  /** Where the message goes, and for a row change its version. */
  Route route() {
    return route;
  }

  /**
   * The name of {@link #destination()}'s table: whose flow control the message is under (null for a
   * batcher test's message, which has no route).
   */
  public TableName table() {
    return route == null ? null : route.tableName();
  }

  /** The encoded rows (RowBinaryWithDefaults), for the schema the message was last encoded for. */
  public byte[] encodedRows() {
    return encoded().bytes();
  }

  public int rowCount() {
    return encoded().rowCount();
  }

  public long enqueuedNanos() {
    return enqueuedNanos;
  }

  public CompletableFuture<PushOutcome> answer() {
    return answer;
  }

  /**
   * Why the message could not be written, as its dead letter has it; null until the writer says.
   * Set before {@link #answer()} is completed, so whoever joins the answer sees it.
   */
  String reason() {
    return reason;
  }

  void reason(String why) {
    reason = why;
  }

  /**
   * The calling thread will wait for the answer in {@link GroupCommitBatcher#answerOf}, and so may
   * be handed a batch to write meanwhile. Called before the message is offered.
   */
  void waitsInBatcher() {
    answer.waiter = Thread.currentThread();
  }

  /**
   * True when a thread waits for the answer in the batcher and may write a batch meanwhile: it has
   * not stopped waiting (it may still stop before {@link #lead}, which then says so).
   */
  boolean mayLead() {
    return answer.waiter != null && toLead != RESIGNED;
  }

  /**
   * Hands {@code batch}, which this message is in, to the thread that waits for it.
   *
   * @return false when that thread has stopped waiting (its answer came first, at its deadline):
   *     the caller writes the batch itself
   */
  boolean lead(List<PendingMessage> batch) {
    if (!TO_LEAD.compareAndSet(this, null, batch)) {
      return false;
    }
    wakeUnlessCurrent(answer.waiter);
    return true;
  }

  /**
   * Wakes {@code thread} parked in {@link GroupCommitBatcher#answerOf}. The waiter itself, which
   * writes its batch and so answers itself, or hands a batch to itself, looks again before it
   * parks: a wake-up it gave itself would be left for whatever its pooled thread parks on next.
   */
  private static void wakeUnlessCurrent(Thread thread) {
    if (thread != null && thread != Thread.currentThread()) {
      LockSupport.unpark(thread);
    }
  }

  /** By the waiting thread: the batch handed to it to write, once; else null. */
  @SuppressWarnings("unchecked")
  List<PendingMessage> takeLead() {
    List<PendingMessage> batch = toLead;
    if (batch == null || batch == RESIGNED) {
      return null;
    }
    toLead = null; // it is no longer queued, so nothing else is handed to it
    return batch;
  }

  /**
   * By the waiting thread, before it stops waiting: no batch may be handed to it from now on.
   *
   * @return false when a batch was handed to it first, which it must write
   */
  boolean resign() {
    return TO_LEAD.compareAndSet(this, null, RESIGNED);
  }

  /** Under the batcher's lock, as its batch is taken for an INSERT. */
  void takenAt(long nanos) {
    takenNanos = nanos;
  }

  /** When its batch was taken for an INSERT; 0 when it never was. */
  long takenNanos() {
    return takenNanos;
  }

  /** When its answer was completed; meaningful once the answer is done. */
  long answeredNanos() {
    return answer.completedNanos;
  }

  /** What the message holds in memory while it waits. */
  public long footprintBytes() {
    return footprintBytes;
  }

  /**
   * Its request was answered (503 at its deadline) before its batch was written, or will be: its
   * deadline passed, and the next sweep of the deadlines answers it.
   */
  @Override
  public boolean abandoned() {
    return answer.isDone()
        || (answerDeadlineNanos != WaitedFor.NO_END
            && System.nanoTime() - answerDeadlineNanos >= 0);
  }

  /** Its request is answered 503 at {@code deadlineNanos}; set before it is offered. */
  void answerBy(long deadlineNanos) {
    answerDeadlineNanos = deadlineNanos;
  }

  @Override
  public long waitedForUntilNanos() {
    return answerDeadlineNanos;
  }
}
