package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.function.envelope.PushMessage;
import dev.pubsubclickhouse.function.sinks.FailedMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A message waiting in the batcher: its rows already encoded (row {@code i} is {@code
 * rows[rowStarts[i] .. rowStarts[i+1])}), the failures found while encoding, and the request
 * waiting for the answer.
 *
 * @param encodedWith the schema snapshot the rows were encoded for; stale after a schema change
 */
public record PendingMessage(
    PushMessage message,
    byte[] rows,
    int[] rowStarts,
    List<FailedMessage> failures,
    TargetTable.Snapshot encodedWith,
    long enqueuedNanos,
    CompletableFuture<PushOutcome> answer) {

  public int rowCount() {
    return rowStarts.length - 1;
  }

  /** What the message holds in memory while it waits. */
  public long footprintBytes() {
    return rows.length + (long) message.data().length + 64L * rowStarts.length;
  }
}
