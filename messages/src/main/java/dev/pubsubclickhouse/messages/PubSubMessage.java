package dev.pubsubclickhouse.messages;

import java.util.Map;

/**
 * One Pub/Sub message as a push request delivers it. Fields Pub/Sub did not send are null (the
 * unwrapped form without metadata carries only {@code data}).
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
}
