package dev.pubsubclickhouse.function.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.pubsub.v1.PubsubMessage;
import dev.pubsubclickhouse.core.write.DeadLetter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeadLetterTopicTest {
  private static DeadLetter deadLetter(Map<String, String> attributes, String reason) {
    byte[] data = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    return new DeadLetter(
        "s\nm", data, data, attributes, Map.of(), reason, Instant.parse("2026-01-15T12:00:00Z"));
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
                "failedAt", "2026-01-15T12:00:00Z"));
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
  void aFourByteCharacterIsNeverCutInHalf() {
    String clipped = DeadLetterTopic.clip("😀".repeat(300), 1024);
    assertThat(clipped).isEqualTo("😀".repeat(255) + "...");
  }

  @Test
  void aMessageAtTheAttributeLimitKeepsItsAttributesAndLeavesOursOut() {
    Map<String, String> attributes = new HashMap<>();
    for (int i = 0; i < 99; i++) {
      attributes.put("k" + i, "v");
    }
    PubsubMessage message = DeadLetterTopic.message(deadLetter(attributes, "why"));
    assertThat(message.getAttributesCount()).isEqualTo(DeadLetterTopic.MAX_ATTRIBUTES);
    assertThat(message.getAttributesMap()).containsAllEntriesOf(attributes);
    assertThat(message.getAttributesMap()).containsEntry("errorMessage", "why");
    assertThat(message.getAttributesMap()).doesNotContainKey("failedAt");
  }

  @Test
  void anOriginalAttributeOfTheSameNameIsKeptAsPublished() {
    PubsubMessage message =
        DeadLetterTopic.message(
            deadLetter(Map.of("errorMessage", "the publisher's own", "k", "v"), "why"));
    assertThat(message.getAttributesMap())
        .containsEntry("errorMessage", "the publisher's own")
        .containsEntry("k", "v")
        .containsEntry("failedAt", "2026-01-15T12:00:00Z");
  }
}
