package dev.pubsubclickhouse.messages.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.pubsub.v1.PubsubMessage;
import dev.pubsubclickhouse.core.insert.WaitedFor;
import dev.pubsubclickhouse.core.write.DeadLetter;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class DeadLetterTopicTest {
  private static DeadLetter deadLetter(Map<String, String> attributes, String reason) {
    byte[] data = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    return DeadLetter.builder()
        .identity("s\nm")
        .data(data)
        .attributes(attributes)
        .reason(reason)
        .failedAt(Instant.parse("2026-01-15T12:00:00Z"))
        .build();
  }

  @Test
  void aPublishIsNotWaitedForPastTheTimeItsMessagesAreWaitedFor() throws Exception {
    // Nothing listens there: the publisher retries for 10 s, and the sink would wait 15 s.
    DeadLetterTopic topic = DeadLetterTopic.open("projects/p/topics/nowhere", "127.0.0.1:1");
    try {
      List<DeadLetter> letters = List.of(deadLetter(Map.of(), "refused"));
      long start = System.nanoTime();
      assertThatThrownBy(
              () ->
                  topic.write(
                      letters, new WaitedFor(() -> true, start + Duration.ofMillis(500).toNanos())))
          .isInstanceOf(TimeoutException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
      assertThatThrownBy(() -> topic.write(letters, new WaitedFor(() -> true, System.nanoTime())))
          .isInstanceOf(SocketTimeoutException.class)
          .hasMessageContaining("nobody waits");
    } finally {
      topic.close();
    }
  }

  @Test
  void theOriginalDataAndAttributesGoWithTheReasonAndTime() {
    PubsubMessage message =
        DeadLetterTopic.message(deadLetter(Map.of("source", "web"), "column 'a' rejects 1"));
    assertThat(message.getData().toStringUtf8()).isEqualTo("{\"a\":1}");
    assertThat(message.getAttributesMap())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "source", "web",
                "errorMessage", "column 'a' rejects 1",
                "failedAt", "2026-01-15T12:00:00Z",
                "deadLetterAdded", "errorMessage,failedAt"));
  }

  @Test
  void theOrderingKeyTravelsAsAListedAttribute() {
    byte[] data = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    DeadLetter keyed =
        DeadLetter.builder()
            .identity("s\nm")
            .data(data)
            .attributes(Map.of("source", "web"))
            .origin(Map.of(DeadLetter.ORDERING_KEY, "customer-42"))
            .reason("why")
            .failedAt(Instant.parse("2026-01-15T12:00:00Z"))
            .build();
    PubsubMessage message = DeadLetterTopic.message(keyed);
    assertThat(message.getAttributesMap())
        .containsEntry("orderingKey", "customer-42")
        .containsEntry("deadLetterAdded", "orderingKey,errorMessage,failedAt");
    assertThat(message.getOrderingKey()).as("no ordering on the dead-letter publisher").isEmpty();
  }

  @Test
  void aMessageThatOurAttributesWouldTakePastPubSubsLimitGoesAsItCame() {
    byte[] data = new byte[DeadLetterTopic.MAX_MESSAGE_BYTES - 600];
    DeadLetter large =
        DeadLetter.builder()
            .identity("s\nm")
            .data(data)
            .attributes(Map.of("source", "web"))
            .reason("x".repeat(2000))
            .failedAt(Instant.parse("2026-01-15T12:00:00Z"))
            .build();
    PubsubMessage message = DeadLetterTopic.message(large);
    assertThat(message.getAttributesMap()).isEqualTo(Map.of("source", "web"));
    assertThat(message.getSerializedSize()).isLessThanOrEqualTo(DeadLetterTopic.MAX_MESSAGE_BYTES);

    DeadLetter justFits =
        DeadLetter.builder()
            .identity("s\nm")
            .data(new byte[DeadLetterTopic.MAX_MESSAGE_BYTES - 2000])
            .payload(data)
            .reason("why")
            .failedAt(Instant.parse("2026-01-15T12:00:00Z"))
            .build();
    assertThat(DeadLetterTopic.message(justFits).getAttributesMap())
        .containsKeys("errorMessage", "failedAt", "deadLetterAdded");
  }

  @Test
  void aLongReasonIsClippedToPubSubsLimitInUtf8BytesNotCharacters() {
    String reason = "é".repeat(800) + "tail"; // 1,604 bytes in 804 characters
    String errorMessage =
        DeadLetterTopic.message(deadLetter(Map.of(), reason)).getAttributesOrThrow("errorMessage");
    assertThat(errorMessage.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(DeadLetterTopic.MAX_ATTRIBUTE_VALUE_BYTES)
        .isGreaterThan(DeadLetterTopic.MAX_ATTRIBUTE_VALUE_BYTES - 4);
    assertThat(errorMessage).startsWith("éé").endsWith("é...");
  }

  @Test
  void nearTheAttributeLimitOnlyWhatFitsWithItsListIsAdded() {
    Map<String, String> attributes = attributes(98);
    PubsubMessage message = DeadLetterTopic.message(deadLetter(attributes, "why"));
    Map<String, String> added = new HashMap<>(message.getAttributesMap());
    added.keySet().removeAll(attributes.keySet());
    assertThat(added)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("errorMessage", "why", "deadLetterAdded", "errorMessage"));
    assertThat(message.getAttributesMap()).containsAllEntriesOf(attributes);
  }

  @Test
  void aMessageWithoutRoomForOneAttributeAndItsListKeepsItsAttributesAndGetsNoneOfOurs() {
    Map<String, String> attributes = attributes(99);
    PubsubMessage message = DeadLetterTopic.message(deadLetter(attributes, "why"));
    assertThat(message.getAttributesMap()).isEqualTo(attributes);
  }

  @Test
  void anOriginalAttributeOfTheSameNameIsKeptAsPublishedAndNotListed() {
    PubsubMessage message =
        DeadLetterTopic.message(
            deadLetter(Map.of("errorMessage", "the publisher's own", "k", "v"), "why"));
    assertThat(message.getAttributesMap())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "errorMessage", "the publisher's own",
                "k", "v",
                "failedAt", "2026-01-15T12:00:00Z",
                "deadLetterAdded", "failedAt"));
  }

  @Test
  void anOriginalWithItsOwnListGetsNothingAdded() {
    Map<String, String> attributes = Map.of("deadLetterAdded", "k", "k", "v");
    PubsubMessage message = DeadLetterTopic.message(deadLetter(attributes, "why"));
    assertThat(message.getAttributesMap()).isEqualTo(attributes);
  }

  private static Map<String, String> attributes(int count) {
    Map<String, String> attributes = new HashMap<>();
    for (int i = 0; i < count; i++) {
      attributes.put("k" + i, "v");
    }
    return attributes;
  }
}
