package dev.pubsubclickhouse.function.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.batching.FlowControlSettings;
import com.google.api.gax.batching.FlowController;
import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import com.google.pubsub.v1.PubsubMessage;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.function.PushConfig;
import dev.pubsubclickhouse.function.ingest.BatchPolicy;
import dev.pubsubclickhouse.messages.PubSubMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PullConfigTest {
  private static PushConfig read(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(extra);
    env.put("CLICKHOUSE_URL", "http://127.0.0.1:8123");
    env.put("CLICKHOUSE_TABLE", "t");
    return PushConfig.read(env);
  }

  @Test
  void aSubscriptionTurnsPullModeOnWithTheDefaultGracePeriod() {
    assertThat(read(Map.of()).pull()).isEmpty();
    assertThat(read(Map.of("PUBSUB_SUBSCRIPTION", "projects/p/subscriptions/events")).pull())
        .contains(new PullSettings("projects/p/subscriptions/events", Duration.ofSeconds(25)));
    assertThat(
            read(Map.of(
                    "PUBSUB_SUBSCRIPTION",
                    "projects/p/subscriptions/events",
                    "SHUTDOWN_GRACE_SECONDS",
                    "50"))
                .pull()
                .orElseThrow()
                .shutdownGrace())
        .isEqualTo(Duration.ofSeconds(50));
  }

  @Test
  void aPullingServiceHasNoPushEndpointSoNoPushTokenWarning() {
    assertThat(read(Map.of()).unauthenticatedWarning()).isPresent();
    assertThat(
            read(Map.of("PUBSUB_SUBSCRIPTION", "projects/p/subscriptions/events"))
                .unauthenticatedWarning())
        .isEmpty();
  }

  /**
   * The service answers every message a second before the client library stops waiting and nacks
   * the unanswered: a message written after that nack would be delivered and written again. And the
   * library's timeout is positive (a zero one skips the last acks) and leaves time to send them.
   */
  @Test
  void everyGracePeriodHasTheServiceAnswerBeforeTheLibraryNacksAndTimeForTheLastAcks() {
    for (long seconds : new long[] {5, 6, 10, 25, 3_600}) {
      ShutdownTimeline timeline = new ShutdownTimeline(Duration.ofSeconds(seconds));
      assertThat(timeline.serviceWriting())
          .as("the service's time to write, of %d s", seconds)
          .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
      assertThat(timeline.serviceWriting().plusSeconds(1))
          .as("the service's answers and a margin, of %d s", seconds)
          .isLessThanOrEqualTo(timeline.answersAwaitedUntil());
      assertThat(timeline.subscriberSettings().getTimeout())
          .as("the subscriber's timeout within a grace period of %d s", seconds)
          .isPositive()
          .isLessThanOrEqualTo(Duration.ofSeconds(seconds - 2));
    }
  }

  @Test
  void aGracePeriodTooShortToWriteAndAnswerIsRefusedNamingTheVariable() {
    assertThatThrownBy(
            () ->
                read(
                    Map.of(
                        "PUBSUB_SUBSCRIPTION",
                        "projects/p/subscriptions/events",
                        "SHUTDOWN_GRACE_SECONDS",
                        "4")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("SHUTDOWN_GRACE_SECONDS: must be between 5 and 3600, got 4");
  }

  @Test
  void aSubscriptionThatIsNotAFullNameStopsStartNamingTheVariable() {
    assertThatThrownBy(() -> read(Map.of("PUBSUB_SUBSCRIPTION", "events")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "PUBSUB_SUBSCRIPTION: expected projects/PROJECT/subscriptions/SUBSCRIPTION, got"
                + " 'events'");
  }

  @Test
  void theEmulatorHostIsTheEndpointUnlessPubSubEndpointSaysOtherwise() {
    assertThat(read(Map.of("PUBSUB_EMULATOR_HOST", "127.0.0.1:8085")).pubsubEndpoint())
        .contains("127.0.0.1:8085");
    assertThat(
            read(Map.of("PUBSUB_EMULATOR_HOST", "127.0.0.1:8085", "PUBSUB_ENDPOINT", "emu:9"))
                .pubsubEndpoint())
        .contains("emu:9");
    assertThatThrownBy(() -> read(Map.of("PUBSUB_EMULATOR_HOST", "http://127.0.0.1:8085")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("PUBSUB_EMULATOR_HOST: expected host:port");
  }

  @Test
  void theSubscribersFlowControlIsTheServicesBudget() {
    BatchPolicy batch =
        BatchPolicy.builder().maxPendingMessages(700).maxPendingBytes(64L << 20).build();
    FlowControlSettings flow = PullSubscriber.flowControl(batch);
    assertThat(flow.getMaxOutstandingElementCount()).isEqualTo(700);
    // Four budget bytes per data byte, and half the budget for what reading takes.
    assertThat(flow.getMaxOutstandingRequestBytes()).isEqualTo(8L << 20);
    assertThat(flow.getLimitExceededBehavior())
        .isEqualTo(FlowController.LimitExceededBehavior.Block);
  }

  @Test
  void aPulledMessageReadsAsAPushedOneWithoutTheClientsDeliveryAttemptAttribute() {
    PubsubMessage pulled =
        PubsubMessage.newBuilder()
            .setData(ByteString.copyFrom("{\"id\":1}", StandardCharsets.UTF_8))
            .putAttributes("source", "a")
            .putAttributes("googclient_deliveryattempt", "3")
            .setMessageId("1234")
            .setPublishTime(Timestamp.newBuilder().setSeconds(1_768_480_496L).setNanos(789_000_000))
            .setOrderingKey("device-7")
            .build();
    PubSubMessage message = PulledMessages.of(pulled, "projects/p/subscriptions/s", 3);
    assertThat(new String(message.data(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":1}");
    assertThat(message.attributes()).isEqualTo(Map.of("source", "a"));
    assertThat(message.messageId()).isEqualTo("1234");
    assertThat(message.publishTime()).isEqualTo("2026-01-15T12:34:56.789Z");
    assertThat(message.orderingKey()).isEqualTo("device-7");
    assertThat(message.subscription()).isEqualTo("projects/p/subscriptions/s");
    assertThat(message.deliveryAttempt()).isEqualTo(3);
  }

  @Test
  void aPulledMessageWithoutOrderingKeyOrAttemptHasNone() {
    PubSubMessage message =
        PulledMessages.of(
            PubsubMessage.newBuilder().setMessageId("9").build(),
            "projects/p/subscriptions/s",
            null);
    assertThat(message.orderingKey()).isNull();
    assertThat(message.deliveryAttempt()).isNull();
    assertThat(message.data()).isEmpty();
  }
}
