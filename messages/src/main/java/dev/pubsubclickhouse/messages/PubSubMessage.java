package dev.pubsubclickhouse.messages;

import java.util.Map;

/**
 * One Pub/Sub message as a push request delivers it. Fields Pub/Sub did not send are null (the
 * unwrapped form without metadata carries only {@code data}). Built with {@link #builder()}.
 *
 * @param data the message data, base64-decoded
 * @param deliveryAttempt present only when the subscription has a dead-letter policy
 */
public record PubSubMessage(
    byte[] data,
    Map<String, String> attributes,
    String messageId,
    String publishTime,
    String orderingKey,
    String subscription,
    Integer deliveryAttempt) {

  public PubSubMessage {
    attributes = Map.copyOf(attributes);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Who the message is, the same on every delivery: the subscription and the message id (message
   * ids are unique per topic only, and a subscription names its topic). Null when either is
   * unknown.
   */
  public String identity() {
    return messageId == null || subscription == null ? null : subscription + "\n" + messageId;
  }

  /** For logs and error messages: the id, or a placeholder. */
  public String describe() {
    return messageId == null ? "message without id" : "message " + messageId;
  }

  /**
   * Builds a {@link PubSubMessage}: empty data, no attributes, every other field null. It keeps the
   * data array it is given, uncopied, as the record does.
   */
  public static final class Builder {
    private static final byte[] NO_DATA = new byte[0];

    private byte[] data = NO_DATA;
    private Map<String, String> attributes = Map.of();
    private String messageId;
    private String publishTime;
    private String orderingKey;
    private String subscription;
    private Integer deliveryAttempt;

    private Builder() {}

    public Builder data(byte[] data) {
      this.data = data;
      return this;
    }

    public Builder attributes(Map<String, String> attributes) {
      this.attributes = attributes;
      return this;
    }

    public Builder messageId(String messageId) {
      this.messageId = messageId;
      return this;
    }

    public Builder publishTime(String publishTime) {
      this.publishTime = publishTime;
      return this;
    }

    public Builder orderingKey(String orderingKey) {
      this.orderingKey = orderingKey;
      return this;
    }

    public Builder subscription(String subscription) {
      this.subscription = subscription;
      return this;
    }

    public Builder deliveryAttempt(Integer deliveryAttempt) {
      this.deliveryAttempt = deliveryAttempt;
      return this;
    }

    public PubSubMessage build() {
      return new PubSubMessage(
          data, attributes, messageId, publishTime, orderingKey, subscription, deliveryAttempt);
    }
  }
}
