package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.insert.WaitedFor;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.core.write.WriteRecord;
import dev.pubsubclickhouse.messages.MessageEncoder;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.payload.PayloadFormat;
import dev.pubsubclickhouse.messages.tables.Destination;
import dev.pubsubclickhouse.messages.tables.Route;
import java.util.concurrent.CompletableFuture;

/**
 * A message waiting in the batcher. It holds the table it goes to, its rows already encoded on the
 * request's thread, and the answer the request waits for. The batch writer encodes it again only
 * when the table's schema changed.
 */
public final class PendingMessage implements WriteRecord {
  private final PubSubMessage message;
  private final MessageEncoder encoder;
  private final Route route;
  private final PayloadFormat format;
  private final long enqueuedNanos;
  private final CompletableFuture<PushOutcome> answer = new CompletableFuture<>();
  private final long footprintBytes;
  private long answerDeadlineNanos = WaitedFor.NO_END;
  private volatile String reason;
  private TargetTable.Snapshot encodedWith;
  private EncodedRows encoded;

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
    this.message = message;
    this.encoder = encoder;
    this.route = route;
    this.format = format;
    this.encodedWith = schema;
    this.encoded = encoded;
    this.enqueuedNanos = System.nanoTime();
    this.footprintBytes = encoded.length() + (long) message.data().length + 128;
  }

  /**
   * A message encoded already, for one schema that never changes, that arrived at {@code
   * enqueuedNanos} on the batcher's clock (the batcher's tests).
   */
  PendingMessage(PubSubMessage message, EncodedRows encoded, long enqueuedNanos) {
    this.message = message;
    this.encoder = null;
    this.route = null;
    this.format = null;
    this.encodedWith = null;
    this.encoded = encoded;
    this.enqueuedNanos = enqueuedNanos;
    this.footprintBytes = encoded.length() + (long) message.data().length + 128;
  }

  public PubSubMessage message() {
    return message;
  }

  /** The table whose writer takes the message (the default table's for a dead letter). */
  Destination destination() {
    return route.destination();
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
    return encoded.bytes();
  }

  public int rowCount() {
    return encoded.rowCount();
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

  /** What the message holds in memory while it waits. */
  public long footprintBytes() {
    return footprintBytes;
  }

  @Override
  public String identity() {
    return message.identity();
  }

  @Override
  public EncodedRows rowsFor(TargetTable.Snapshot schema) {
    if (schema != encodedWith && format != null) {
      encoded = encoder.encode(message, format, schema);
      encodedWith = schema;
    }
    return encoded;
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

  @Override
  public DeadLetter deadLetter(String reason) {
    return encoder.deadLetter(message, identity(), reason);
  }
}
