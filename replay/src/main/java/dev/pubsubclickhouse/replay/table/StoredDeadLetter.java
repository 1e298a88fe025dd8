package dev.pubsubclickhouse.replay.table;

import dev.pubsubclickhouse.messages.PubSubMessage;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One row of the dead-letter table as the replay reads it, and the message it was.
 *
 * @param key a hash of every column: rows with the same key are one dead letter written twice
 * @param rows where its rows and its copies' (the same message with the same raw_message and
 *     attributes) are, one for each key: they leave the table with it
 * @param failedAtNanos failed_at, nanoseconds since 1970 (with {@code key}, the row's place in a
 *     replay's order)
 * @param data the raw_message bytes: the message data as the service read it
 * @param messageId empty when unknown
 * @param publishTime RFC 3339, or null when unknown
 * @param orderingKey empty when none
 * @param subscription empty when unknown
 * @param deliveryAttempt null when unknown
 * @param sourceRow the source row of a backfill's dead letter (no Pub/Sub message), else empty
 */
record StoredDeadLetter(
    String key,
    List<DeadLetterRows.Position> rows,
    long failedAtNanos,
    byte[] data,
    String errorMessage,
    String messageId,
    String publishTime,
    Map<String, String> attributes,
    String orderingKey,
    String subscription,
    Integer deliveryAttempt,
    String sourceRow) {

  /**
   * Written by a backfill, which shares the dead-letter table: not a message, and the backfill's to
   * write again (from its checkpoint table). A message id or subscription says it is a message,
   * whatever its stack_trace holds (an ordering key, the publisher's text, may read "sourceRow=").
   */
  boolean fromBackfill() {
    return !sourceRow.isEmpty() && messageId.isEmpty() && subscription.isEmpty();
  }

  Instant failedAt() {
    return Instant.ofEpochSecond(0, failedAtNanos);
  }

  /** The message as Pub/Sub delivered it, so far as the table kept it. */
  PubSubMessage message() {
    return new PubSubMessage(
        data,
        attributes,
        orNull(messageId),
        publishTime,
        orNull(orderingKey),
        orNull(subscription),
        deliveryAttempt);
  }

  /** For lines about it: the message id, or where the row is. */
  String describe() {
    return (messageId.isEmpty() ? "dead letter without message id" : "message " + messageId)
        + " (failed "
        + failedAt()
        + ")";
  }

  private static String orNull(String text) {
    return text.isEmpty() ? null : text;
  }
}
