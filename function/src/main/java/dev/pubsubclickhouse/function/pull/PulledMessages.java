package dev.pubsubclickhouse.function.pull;

import com.google.protobuf.Timestamp;
import com.google.pubsub.v1.PubsubMessage;
import dev.pubsubclickhouse.messages.PubSubMessage;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/** A pulled message as the ingestion path reads every message, the same fields a push carries. */
final class PulledMessages {
  /**
   * The client library adds the delivery attempt to the attributes of a message from a subscription
   * with a dead-letter policy; it is no attribute the publisher set, and push carries it apart.
   */
  static final String DELIVERY_ATTEMPT_ATTRIBUTE = "googclient_deliveryattempt";

  private PulledMessages() {}

  static PubSubMessage of(PubsubMessage pulled, String subscription, Integer deliveryAttempt) {
    Map<String, String> attributes = new HashMap<>(pulled.getAttributesMap());
    attributes.remove(DELIVERY_ATTEMPT_ATTRIBUTE);
    return PubSubMessage.builder()
        .data(pulled.getData().toByteArray())
        .attributes(attributes)
        .messageId(pulled.getMessageId().isEmpty() ? null : pulled.getMessageId())
        .publishTime(pulled.hasPublishTime() ? publishTime(pulled.getPublishTime()) : null)
        .orderingKey(pulled.getOrderingKey().isEmpty() ? null : pulled.getOrderingKey())
        .subscription(subscription)
        .deliveryAttempt(deliveryAttempt)
        .build();
  }

  /** RFC 3339 in UTC, as a push request writes it ({@code 2026-01-15T12:34:56.789Z}). */
  private static String publishTime(Timestamp time) {
    return Instant.ofEpochSecond(time.getSeconds(), time.getNanos()).toString();
  }
}
