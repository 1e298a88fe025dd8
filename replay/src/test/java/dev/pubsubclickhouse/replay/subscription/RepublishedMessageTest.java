package dev.pubsubclickhouse.replay.subscription;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.pubsub.v1.PubsubMessage;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RepublishedMessageTest {
  private static PubsubMessage deadLetter(Map<String, String> attributes) {
    return PubsubMessage.newBuilder()
        .setData(ByteString.copyFromUtf8("{\"a\":1}"))
        .putAllAttributes(attributes)
        .setOrderingKey("key-1")
        .setMessageId("99")
        .build();
  }

  @Test
  void whatTheServicesDeadLetterTopicListedIsLeftOutAndNothingElse() {
    PubsubMessage republished =
        RepublishedMessage.of(
            deadLetter(
                Map.of(
                    "source", "web",
                    "errorMessage", "why",
                    "failedAt", "2026-01-15T12:00:00Z",
                    "deadLetterAdded", "errorMessage,failedAt")),
            Set.of());
    assertThat(republished.getAttributesMap()).isEqualTo(Map.of("source", "web"));
    assertThat(republished.getData().toStringUtf8()).isEqualTo("{\"a\":1}");
    assertThat(republished.getOrderingKey()).isEqualTo("key-1");
    assertThat(republished.getMessageId()).as("Pub/Sub gives it a new one").isEmpty();
  }

  @Test
  void theOrderingKeyTheServiceCarriedInAnAttributeIsTheOrderingKeyAgain() {
    PubsubMessage fromTheService =
        PubsubMessage.newBuilder()
            .setData(ByteString.copyFromUtf8("{\"a\":1}"))
            .putAllAttributes(
                Map.of(
                    "source", "web",
                    "orderingKey", "customer-42",
                    "errorMessage", "why",
                    "deadLetterAdded", "orderingKey,errorMessage"))
            .build();
    PubsubMessage republished = RepublishedMessage.of(fromTheService, Set.of());
    assertThat(republished.getOrderingKey()).isEqualTo("customer-42");
    assertThat(republished.getAttributesMap()).isEqualTo(Map.of("source", "web"));

    PubsubMessage publishersOwn =
        fromTheService.toBuilder().putAttributes("deadLetterAdded", "errorMessage").build();
    assertThat(RepublishedMessage.of(publishersOwn, Set.of()).getOrderingKey())
        .as("an orderingKey attribute the service did not list is the publisher's")
        .isEmpty();
  }

  @Test
  void thePublishersOwnErrorMessageIsKept() {
    PubsubMessage deadLetter =
        deadLetter(
            Map.of(
                "errorMessage", "the publisher's own",
                "failedAt", "2026-01-15T12:00:00Z",
                "deadLetterAdded", "failedAt"));
    assertThat(RepublishedMessage.of(deadLetter, Set.of()).getAttributesMap())
        .isEqualTo(Map.of("errorMessage", "the publisher's own"));
    assertThat(RepublishedMessage.error(deadLetter)).as("not the service's reason").isEmpty();
  }

  @Test
  void withoutTheListErrorMessageAndFailedAtStayUnlessTheOperatorDropsThem() {
    PubsubMessage older =
        deadLetter(Map.of("errorMessage", "why", "failedAt", "2026-01-15T12:00:00Z", "k", "v"));
    assertThat(RepublishedMessage.of(older, Set.of()).getAttributesMap())
        .isEqualTo(older.getAttributesMap());
    assertThat(RepublishedMessage.of(older, Set.of("errorMessage", "failedAt")).getAttributesMap())
        .isEqualTo(Map.of("k", "v"));
  }

  @Test
  void pubSubsDeadLetterAttributesAreLeftOut() {
    PubsubMessage deadLetter =
        deadLetter(
            Map.of(
                "k", "v",
                "CloudPubSubDeadLetterSourceDeliveryCount", "5",
                "CloudPubSubDeadLetterSourceSubscription", "push",
                "CloudPubSubDeadLetterSourceSubscriptionProject", "p",
                "CloudPubSubDeadLetterSourceTopicPublishTime", "2026-01-15T12:00:00Z"));
    assertThat(RepublishedMessage.of(deadLetter, Set.of()).getAttributesMap())
        .isEqualTo(Map.of("k", "v"));
  }

  @Test
  void theListNamesOnlyWhatTheServiceAdds() {
    PubsubMessage deadLetter = deadLetter(Map.of("k", "v", "deadLetterAdded", "k,errorMessage"));
    assertThat(RepublishedMessage.of(deadLetter, Set.of()).getAttributesMap())
        .isEqualTo(Map.of("k", "v"));
  }
}
