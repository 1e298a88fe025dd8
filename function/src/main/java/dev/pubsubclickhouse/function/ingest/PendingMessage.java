package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.core.write.WriteRecord;
import dev.pubsubclickhouse.function.envelope.PushMessage;
import java.util.concurrent.CompletableFuture;

/**
 * A message waiting in the batcher: its rows already encoded on the request's thread, and the
 * request waiting for the answer. The batch writer encodes it again only when the table changed.
 */
public final class PendingMessage implements WriteRecord {
  private final PushMessage message;
  private final MessageEncoder encoder;
  private final long enqueuedNanos;
  private final CompletableFuture<PushOutcome> answer = new CompletableFuture<>();
  private final long footprintBytes;
  private TargetTable.Snapshot encodedWith;
  private EncodedRows encoded;

  PendingMessage(PushMessage message, MessageEncoder encoder, TargetTable.Snapshot schema) {
    this.message = message;
    this.encoder = encoder;
    this.encodedWith = schema;
    this.encoded = encoder.encode(message, schema);
    this.enqueuedNanos = System.nanoTime();
    this.footprintBytes = encoded.length() + (long) message.data().length + 128;
  }

  /**
   * A message encoded already, for one schema that never changes, that arrived at {@code
   * enqueuedNanos} on the batcher's clock (the batcher's tests).
   */
  PendingMessage(PushMessage message, EncodedRows encoded, long enqueuedNanos) {
    this.message = message;
    this.enqueuedNanos = enqueuedNanos;
    this.encoder = null;
    this.encodedWith = null;
    this.encoded = encoded;
    this.footprintBytes = encoded.length() + (long) message.data().length + 128;
  }

  public PushMessage message() {
    return message;
  }

  /** The encoded rows (RowBinaryWithDefaults), for the schema the message was last encoded for. */
  public byte[] rows() {
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
    if (schema != encodedWith && encoder != null) {
      encoded = encoder.encode(message, schema);
      encodedWith = schema;
    }
    return encoded;
  }

  @Override
  public DeadLetter deadLetter(String reason) {
    return encoder.deadLetter(message, identity(), reason);
  }
}
