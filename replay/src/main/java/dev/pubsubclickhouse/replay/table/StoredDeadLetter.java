package dev.pubsubclickhouse.replay.table;

import dev.pubsubclickhouse.messages.PubSubMessage;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One row of the dead-letter table as the replay reads it, and the message it was. Built with
 * {@link #builder()}.
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
    return PubSubMessage.builder()
        .data(data)
        .attributes(attributes)
        .messageId(orNull(messageId))
        .publishTime(publishTime)
        .orderingKey(orNull(orderingKey))
        .subscription(orNull(subscription))
        .deliveryAttempt(deliveryAttempt)
        .build();
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

  static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link StoredDeadLetter}. */
  static final class Builder {
    private String key;
    private List<DeadLetterRows.Position> rows;
    private long failedAtNanos;
    private byte[] data;
    private String errorMessage;
    private String messageId;
    private String publishTime;
    private Map<String, String> attributes;
    private String orderingKey;
    private String subscription;
    private Integer deliveryAttempt;
    private String sourceRow;

    private Builder() {}

    Builder key(String key) {
      this.key = key;
      return this;
    }

    Builder rows(List<DeadLetterRows.Position> rows) {
      this.rows = rows;
      return this;
    }

    Builder failedAtNanos(long failedAtNanos) {
      this.failedAtNanos = failedAtNanos;
      return this;
    }

    Builder data(byte[] data) {
      this.data = data;
      return this;
    }

    Builder errorMessage(String errorMessage) {
      this.errorMessage = errorMessage;
      return this;
    }

    Builder messageId(String messageId) {
      this.messageId = messageId;
      return this;
    }

    Builder publishTime(String publishTime) {
      this.publishTime = publishTime;
      return this;
    }

    Builder attributes(Map<String, String> attributes) {
      this.attributes = attributes;
      return this;
    }

    Builder orderingKey(String orderingKey) {
      this.orderingKey = orderingKey;
      return this;
    }

    Builder subscription(String subscription) {
      this.subscription = subscription;
      return this;
    }

    Builder deliveryAttempt(Integer deliveryAttempt) {
      this.deliveryAttempt = deliveryAttempt;
      return this;
    }

    Builder sourceRow(String sourceRow) {
      this.sourceRow = sourceRow;
      return this;
    }

    StoredDeadLetter build() {
      return new StoredDeadLetter(
          key,
          rows,
          failedAtNanos,
          data,
          errorMessage,
          messageId,
          publishTime,
          attributes,
          orderingKey,
          subscription,
          deliveryAttempt,
          sourceRow);
    }
  }
}
