package dev.pubsubclickhouse.replay.subscription;

import com.google.pubsub.v1.PubsubMessage;
import dev.pubsubclickhouse.messages.sinks.DeadLetterTopic;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A dead letter as its publisher published it: the same data, ordering key and attributes, without
 * exactly the attributes the dead-lettering added:
 *
 * <ul>
 *   <li>those Pub/Sub's dead-letter policy adds, all named {@code CloudPubSubDeadLetterSource...}
 *       (DeliveryCount, Subscription, SubscriptionProject, TopicPublishTime, ...);
 *   <li>those the service's dead-letter topic added, which it names in {@code deadLetterAdded}
 *       ({@code errorMessage}, {@code failedAt}, {@code orderingKey}, which becomes the ordering
 *       key again), and {@code deadLetterAdded} itself: an {@code errorMessage} of the publisher's
 *       own is kept;
 *   <li>any the operator names ({@code --dropAttribute}), e.g. for dead letters published before
 *       {@code deadLetterAdded} existed.
 * </ul>
 */
final class RepublishedMessage {
  static final String PUBSUB_PREFIX = "CloudPubSubDeadLetterSource";

  /** What the service's dead-letter topic may add, and so what {@code deadLetterAdded} may name. */
  private static final Set<String> SERVICE_ADDS =
      Set.of(
          DeadLetterTopic.ERROR_MESSAGE, DeadLetterTopic.FAILED_AT, DeadLetterTopic.ORDERING_KEY);

  private RepublishedMessage() {}

  /** The message to publish to the source topic. */
  static PubsubMessage of(PubsubMessage deadLetter, Set<String> alsoDrop) {
    Set<String> dropped = dropped(deadLetter, alsoDrop);
    Map<String, String> attributes = new HashMap<>(deadLetter.getAttributesMap());
    attributes.keySet().removeAll(dropped);
    return PubsubMessage.newBuilder()
        .setData(deadLetter.getData())
        .putAllAttributes(attributes)
        .setOrderingKey(orderingKey(deadLetter))
        .build();
  }

  /**
   * Its own ordering key (Pub/Sub's dead-letter policy keeps it), else the one the service's
   * dead-letter topic carried in an attribute.
   */
  private static String orderingKey(PubsubMessage deadLetter) {
    if (!deadLetter.getOrderingKey().isEmpty()
        || !addedByTheService(deadLetter).contains(DeadLetterTopic.ORDERING_KEY)) {
      return deadLetter.getOrderingKey();
    }
    return deadLetter.getAttributesOrThrow(DeadLetterTopic.ORDERING_KEY);
  }

  /** The names of the attributes that were added to {@code deadLetter} and are left out. */
  static Set<String> dropped(PubsubMessage deadLetter, Set<String> alsoDrop) {
    Set<String> dropped = new HashSet<>();
    for (String name : deadLetter.getAttributesMap().keySet()) {
      if (name.startsWith(PUBSUB_PREFIX) || alsoDrop.contains(name)) {
        dropped.add(name);
      }
    }
    dropped.addAll(addedByTheService(deadLetter));
    return dropped;
  }

  /** Why the service could not write it, when its dead-letter topic said so. */
  static Optional<String> error(PubsubMessage deadLetter) {
    return addedByTheService(deadLetter).contains(DeadLetterTopic.ERROR_MESSAGE)
        ? Optional.of(deadLetter.getAttributesOrThrow(DeadLetterTopic.ERROR_MESSAGE))
        : Optional.empty();
  }

  private static Set<String> addedByTheService(PubsubMessage deadLetter) {
    String list = deadLetter.getAttributesOrDefault(DeadLetterTopic.ADDED, null);
    if (list == null) {
      return Set.of();
    }
    Set<String> added = new HashSet<>();
    added.add(DeadLetterTopic.ADDED);
    for (String name : list.split(",")) {
      if (SERVICE_ADDS.contains(name) && deadLetter.containsAttributes(name)) {
        added.add(name);
      }
    }
    return added;
  }
}
