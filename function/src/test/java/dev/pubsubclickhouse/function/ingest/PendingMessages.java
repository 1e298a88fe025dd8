package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.function.envelope.PushMessage;
import java.util.Map;

/** Messages for tests of what handles batches, already encoded as one one-byte row. */
public final class PendingMessages {
  private PendingMessages() {}

  public static PendingMessage of(String messageId, long enqueuedNanos) {
    return new PendingMessage(
        new PushMessage(new byte[0], Map.of(), messageId, null, null, null, null),
        EncodedRows.of(new byte[] {1}, 0, 1, 1),
        enqueuedNanos);
  }
}
