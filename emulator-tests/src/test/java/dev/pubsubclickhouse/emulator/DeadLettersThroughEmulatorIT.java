package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.PubSubEmulator;
import dev.pubsubclickhouse.testing.PubSubEmulatorTest;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.PubSubRest.Received;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where a message the service cannot place ends, with Pub/Sub in the loop: in Pub/Sub's own
 * dead-letter topic when no dead-letter sink is configured (the service refuses it until the
 * subscription's dead-letter policy moves it), or in the service's dead-letter topic, published
 * through the real google-cloud-pubsub client to the emulator. Either way with its data and
 * attributes as published.
 */
@ClickHouseTest
@PubSubEmulatorTest
class DeadLettersThroughEmulatorIT {
  private static final Duration ARRIVAL = Duration.ofSeconds(90);

  private final TestDatabase database;
  private final Sql sql;
  private final PubSubEmulator emulator;
  private final PubSubRest pubsub;

  DeadLettersThroughEmulatorIT(TestDatabase database, PubSubEmulator emulator) {
    this.database = database;
    this.sql = Sql.of(database);
    this.emulator = emulator;
    this.pubsub = emulator.rest("emulator-tests");
  }

  private ServiceProcess service(String table, Map<String, String> settings) throws Exception {
    Stored.createTarget(sql, table);
    Map<String, String> env = Services.writing(database.server(), database.name(), table);
    env.putAll(settings);
    return Services.start(table, env);
  }

  private static List<Message> good(int from, int count) {
    List<Message> messages = new ArrayList<>();
    for (int id = from; id < from + count; id++) {
      messages.add(Events.one(id));
    }
    return messages;
  }

  @Test
  void withNoDeadLetterSinkPubSubsOwnPolicyTakesWhatTheServiceRefuses() throws Exception {
    ServiceProcess service = service("refusals", Map.of());
    try {
      PubSubDeadLetterTopic deadLetterTopic = new PubSubDeadLetterTopic(pubsub, "refusals");
      // No retry policy: with one the emulator stops redelivering once several messages are nacked
      // together; without, it redelivers a nack after about a second.
      String push =
          deadLetterTopic
              .policyOf(pubsub.subscription("refusals-push", "refusals").pushTo(service.url()))
              .create();
      List<Message> good = good(1, 20);
      List<Message> bad = List.of(Events.negativeId(101), Events.notJson(102));
      List<String> goodIds = pubsub.publish("refusals", good);
      pubsub.publish("refusals", bad);

      Stored refusals = new Stored(sql, "refusals");
      deadLetterTopic.assertHoldsExactly(bad, push, ARRIVAL);
      refusals.awaitSettled(good.size(), ARRIVAL);
      refusals.assertHoldsExactly(
          Events.expectedRows(pubsub.subscriptionPath(push), goodIds, good, false));
      assertThat(service.metric("pubsub_clickhouse_messages_received_total"))
          .as("each refused message was pushed five times")
          .isGreaterThanOrEqualTo(good.size() + 5L * bad.size());
    } finally {
      Services.stop(service);
    }
  }

  @Test
  void theDeadLetterTopicSinkPublishesThroughTheRealClientAndNacksWhileItCannot() throws Exception {
    pubsub.createTopic("sinked");
    pubsub.createTopic("sinked-dead");
    String deadPull = pubsub.subscription("sinked-dead-pull", "sinked-dead").create();
    ServiceProcess service =
        service(
            "sinked",
            Map.of(
                "DEAD_LETTER_TOPIC", pubsub.topicPath("sinked-dead"),
                "PUBSUB_ENDPOINT", emulator.host()));
    try {
      String push = pubsub.subscription("sinked-push", "sinked").pushTo(service.url()).create();
      List<Message> good = good(201, 10);
      List<Message> bad = List.of(Events.negativeId(301), Events.notJson(302));
      List<String> goodIds = pubsub.publish("sinked", good);
      pubsub.publish("sinked", bad);

      List<Received> deadLettered = pubsub.pullUntil(deadPull, bad.size(), ARRIVAL);
      assertThat(deadLettered.stream().map(Received::text).toList())
          .containsExactlyInAnyOrderElementsOf(bad.stream().map(Message::text).toList());
      for (Received message : deadLettered) {
        Message published =
            bad.stream().filter(b -> b.text().equals(message.text())).findFirst().orElseThrow();
        Map<String, String> original = new HashMap<>(message.attributes());
        String reason = original.remove("errorMessage");
        Instant failedAt = Instant.parse(original.remove("failedAt"));
        assertThat(original.remove("deadLetterAdded")).isEqualTo("errorMessage,failedAt");
        assertThat(original).as("original attributes intact").isEqualTo(published.attributes());
        assertThat(failedAt).isBefore(Instant.now());
        if (published.text().startsWith("not json")) {
          assertThat(reason).isNotBlank();
        } else {
          assertThat(reason).contains("column 'id' (UInt32) rejects -301");
        }
      }

      // The dead-letter topic gone: a message that needs it is not acknowledged (503), and Pub/Sub
      // redelivers it until the topic is back.
      pubsub.deleteTopic("sinked-dead");
      Message whileGone = Events.negativeId(303);
      List<Message> goodWhileGone = good(211, 5);
      pubsub.publish("sinked", List.of(whileGone));
      goodIds = new ArrayList<>(goodIds);
      goodIds.addAll(pubsub.publish("sinked", goodWhileGone));
      long deadline = System.nanoTime() + ARRIVAL.toNanos();
      while (service.metric("pubsub_clickhouse_unavailable_total") < 2
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(service.metric("pubsub_clickhouse_unavailable_total"))
          .as("answered 503 (redelivered, answered 503 again) while the topic was gone")
          .isGreaterThanOrEqualTo(2);
      pubsub.createTopic("sinked-dead");
      String deadPullAgain = pubsub.subscription("sinked-dead-pull-2", "sinked-dead").create();
      List<Received> afterwards = pubsub.pullUntil(deadPullAgain, 1, ARRIVAL);
      assertThat(afterwards).extracting(Received::text).containsExactly(whileGone.text());

      List<Message> allGood = new ArrayList<>(good);
      allGood.addAll(goodWhileGone);
      Stored sinked = new Stored(sql, "sinked");
      sinked.awaitSettled(allGood.size(), ARRIVAL);
      sinked.assertHoldsExactly(
          Events.expectedRows(pubsub.subscriptionPath(push), goodIds, allGood, false));
      assertThat(pubsub.pull(deadPullAgain, 10)).as("republished once").isEmpty();
    } finally {
      Services.stop(service);
    }
  }
}
