package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.PubSubRest.Received;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Pub/Sub's own dead-letter policy in the emulator: the topic a subscription moves a message to
 * once it was delivered {@link #DELIVERIES} times without an ack, and a pull subscription on it to
 * see what arrived there.
 */
final class PubSubDeadLetterTopic {
  /** Deliveries before Pub/Sub gives up on a message (the policy's max_delivery_attempts). */
  static final int DELIVERIES = 5;

  private static final String SOURCE_PREFIX = "CloudPubSubDeadLetterSource";

  private final PubSubRest pubsub;
  private final String name;
  private final String pull;

  /** Creates {@code topic}, its dead-letter topic {@code <topic>-dead} and a pull subscription. */
  PubSubDeadLetterTopic(PubSubRest pubsub, String topic) {
    this.pubsub = pubsub;
    this.name = topic + "-dead";
    pubsub.createTopic(topic);
    pubsub.createTopic(name);
    this.pull = pubsub.subscription(name + "-pull", name).create();
  }

  /** {@code subscription} with this topic as its dead-letter topic. */
  PubSubRest.Subscription policyOf(PubSubRest.Subscription subscription) {
    return subscription.deadLetters(name, DELIVERIES);
  }

  /**
   * Waits up to {@code within} for as many messages as {@code refused} to arrive, then checks that
   * they are those messages, their attributes as published, moved from {@code subscription} after
   * {@link #DELIVERIES} deliveries.
   */
  void assertHoldsExactly(List<Message> refused, String subscription, Duration within)
      throws InterruptedException {
    List<Received> deadLettered = pubsub.pullUntil(pull, refused.size(), within);
    assertThat(deadLettered.stream().map(Received::text).toList())
        .as("the refused messages, and only they, in Pub/Sub's dead-letter topic")
        .containsExactlyInAnyOrderElementsOf(refused.stream().map(Message::text).toList());
    for (Received message : deadLettered) {
      Message published =
          refused.stream().filter(r -> r.text().equals(message.text())).findFirst().orElseThrow();
      Map<String, String> original = new HashMap<>(message.attributes());
      original.keySet().removeIf(name -> name.startsWith(SOURCE_PREFIX));
      assertThat(original).as("original attributes intact").isEqualTo(published.attributes());
      assertThat(message.attributes())
          .containsEntry(SOURCE_PREFIX + "Subscription", subscription)
          .containsEntry(SOURCE_PREFIX + "DeliveryCount", Integer.toString(DELIVERIES));
    }
  }
}
