package dev.pubsubclickhouse.replay.subscription;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.replay.Run;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.PubSubEmulator;
import dev.pubsubclickhouse.testing.PubSubEmulatorTest;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.PubSubRest.Received;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code replay.jar subscription} against gcloud's Pub/Sub emulator: dead letters as the service's
 * dead-letter topic and Pub/Sub's dead-letter policy make them, republished to a source topic whose
 * own pull subscription shows, message by message, what arrived. Whatever is not republished must
 * still be in the dead-letter subscription, as it was.
 */
@PubSubEmulatorTest
class SubscriptionReplayIT {
  private static final Duration ARRIVAL = Duration.ofSeconds(60);

  private final PubSubEmulator emulator;
  private final PubSubRest pubsub;

  SubscriptionReplayIT(PubSubEmulator emulator) {
    this.emulator = emulator;
    this.pubsub = emulator.rest("replay-tests");
  }

  /** A source topic with a pull subscription to see what is republished, and a dead-letter one. */
  private record Topics(String source, String check, String deadLetters, String deadPull) {}

  private Topics topics(String name) {
    pubsub.createTopic(name);
    pubsub.createTopic(name + "-dead");
    return new Topics(
        name,
        pubsub.subscription(name + "-check", name).create(),
        name + "-dead",
        pubsub.subscription(name + "-dead-pull", name + "-dead").create());
  }

  private Run replay(Topics topics, String... flags) {
    List<String> args = new ArrayList<>();
    args.add("subscription");
    args.add("--subscription=" + pubsub.subscriptionPath(topics.deadPull()));
    args.add("--topic=" + pubsub.topicPath(topics.source()));
    args.add("--pubsubEndpoint=" + emulator.host());
    args.add("--waitSeconds=2");
    args.addAll(List.of(flags));
    if (args.stream().noneMatch(arg -> arg.startsWith("--maxPerSecond="))) {
      args.add("--maxPerSecond=0");
    }
    return Run.of(Map.of(), args.toArray(String[]::new));
  }

  /** What a publisher published. */
  private static Message original(int n) {
    return Message.of("{\"id\":" + n + ",\"name\":\"event " + n + " · ✓\"}")
        .withAttributes(Map.of("source", "sensor-" + n, "trace", "t-" + n));
  }

  /** As the service's dead-letter topic publishes it. */
  private static Message fromTheService(Message original, String reason) {
    Map<String, String> attributes = new HashMap<>(original.attributes());
    attributes.put("errorMessage", reason);
    attributes.put("failedAt", "2026-01-15T12:00:00Z");
    attributes.put("deadLetterAdded", "errorMessage,failedAt");
    return new Message(original.data(), attributes, original.orderingKey());
  }

  private static Map<String, Message> byData(List<Message> messages) {
    Map<String, Message> map = new LinkedHashMap<>();
    messages.forEach(m -> map.put(m.text(), m));
    return map;
  }

  /** Asserts that {@code received} are exactly {@code expected}: data, attributes, ordering key. */
  private static void assertSame(List<Received> received, List<Message> expected) {
    assertThat(received.stream().map(Received::text).toList())
        .containsExactlyInAnyOrderElementsOf(expected.stream().map(Message::text).toList());
    Map<String, Message> published = byData(expected);
    for (Received message : received) {
      Message original = published.get(message.text());
      assertThat(message.attributes()).as(message.text()).isEqualTo(original.attributes());
      assertThat(message.orderingKey()).as(message.text()).isEqualTo(original.orderingKey());
    }
  }

  /**
   * What the subscription holds (waiting up to {@code timeout} for {@code expected} messages),
   * handed back unacknowledged.
   */
  private List<Received> peek(String subscription, int expected, Duration timeout)
      throws InterruptedException {
    List<Received> all = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (all.size() < expected && System.nanoTime() < deadline) {
      List<Received> batch = pubsub.pull(subscription, 100);
      all.addAll(batch);
      if (batch.isEmpty()) {
        Thread.sleep(100);
      }
    }
    pubsub.handBack(subscription, all);
    return all;
  }

  private List<Received> peek(String subscription, int expected) throws InterruptedException {
    return peek(subscription, expected, Duration.ofSeconds(5));
  }

  @Test
  void republishesDataAttributesAndOrderingKeyAsPublishedAndAcknowledgesEach() throws Exception {
    Topics topics = topics("as-published");
    List<Message> originals = new ArrayList<>();
    List<Message> deadLetters = new ArrayList<>();
    for (int n = 1; n <= 3; n++) {
      originals.add(original(n));
      deadLetters.add(fromTheService(original(n), "column 'id' (UInt8) rejects " + n));
    }
    // The publisher's own errorMessage: the service added only failedAt, and said so.
    Message ownError =
        Message.of("{\"id\":4}").withAttributes(Map.of("errorMessage", "the publisher's own"));
    originals.add(ownError);
    deadLetters.add(
        ownError.withAttributes(
            Map.of(
                "errorMessage", "the publisher's own",
                "failedAt", "2026-01-15T12:00:00Z",
                "deadLetterAdded", "failedAt")));
    Message ordered = original(5).withOrderingKey("device-5");
    originals.add(ordered);
    deadLetters.add(fromTheService(ordered, "why"));
    pubsub.publish(topics.deadLetters(), deadLetters);

    Run run = replay(topics);

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .contains(
            "republished 5 messages from "
                + pubsub.subscriptionPath(topics.deadPull())
                + " to "
                + pubsub.topicPath(topics.source())
                + ", each acknowledged after its publish");
    assertSame(pubsub.pullUntil(topics.check(), originals.size(), ARRIVAL), originals);
    assertThat(peek(topics.deadPull(), 1)).as("every dead letter acknowledged").isEmpty();
  }

  @Test
  void whatPubSubsOwnDeadLetterPolicyAddsIsLeftOut() throws Exception {
    Topics topics = topics("policy");
    // A push subscription whose endpoint never answers 2xx: after five attempts Pub/Sub moves the
    // message to the dead-letter topic with its CloudPubSubDeadLetterSource* attributes.
    int closed = LocalClickHouse.freePort();
    pubsub.createTopic("policy-in");
    pubsub
        .subscription("policy-push", "policy-in")
        .pushTo(URI.create("http://127.0.0.1:" + closed + "/"))
        .deadLetters(topics.deadLetters(), 5)
        .create();
    List<Message> originals = List.of(original(11), original(12));
    pubsub.publish("policy-in", originals);
    List<Received> moved = peek(topics.deadPull(), 2, ARRIVAL);
    assertThat(moved).hasSize(2);
    assertThat(moved.get(0).attributes())
        .containsKeys(
            "CloudPubSubDeadLetterSourceDeliveryCount", "CloudPubSubDeadLetterSourceSubscription");
    pubsub.deleteSubscription("policy-push");

    Run run = replay(topics);

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertSame(pubsub.pullUntil(topics.check(), originals.size(), ARRIVAL), originals);
  }

  @Test
  void filtersRepublishOnlyWhatTheyNameAndLeaveTheRestAsItWas() throws Exception {
    Topics topics = topics("filtered");
    List<Message> deadLetters = new ArrayList<>();
    for (int n = 21; n <= 25; n++) {
      deadLetters.add(
          fromTheService(original(n), n % 2 == 0 ? "column 'level' rejects" : "not JSON"));
    }
    List<String> ids = pubsub.publish(topics.deadLetters(), deadLetters);

    Run byError = replay(topics, "--errorContains=column 'level'");
    Run byId = replay(topics, "--messageId=" + ids.get(0));

    assertThat(byError.exitCode()).as(byError.toString()).isZero();
    assertThat(byId.exitCode()).as(byId.toString()).isZero();
    assertThat(byError.out()).contains("republished 2 messages").contains("3 messages left in");
    assertSame(
        pubsub.pullUntil(topics.check(), 3, ARRIVAL),
        List.of(original(22), original(24), original(21)));
    assertSame(peek(topics.deadPull(), 2), List.of(deadLetters.get(2), deadLetters.get(4)));
  }

  @Test
  void aDryRunListsWhatWouldGoAndPublishesAndAcknowledgesNothing() throws Exception {
    Topics topics = topics("dry");
    List<Message> deadLetters = List.of(fromTheService(original(31), "why 31"));
    List<String> ids = pubsub.publish(topics.deadLetters(), deadLetters);

    Run run = replay(topics, "--dryRun");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .contains("would republish: message " + ids.get(0) + " (dead-lettered ")
        .contains(
            "attributes [source, trace], leaving out [deadLetterAdded, errorMessage, failedAt]):"
                + " why 31")
        .contains("dry run: 1 messages in ")
        .contains("nothing was published or acknowledged; 1 messages left in");
    assertThat(pubsub.pull(topics.check(), 10)).isEmpty();
    assertSame(peek(topics.deadPull(), 1), deadLetters);
  }

  @Test
  void aTopicThatCannotBeReachedStopsWithNothingAcknowledgedAndNothingLost() throws Exception {
    Topics topics = topics("unreachable");
    List<Message> deadLetters =
        List.of(fromTheService(original(41), "a"), fromTheService(original(42), "b"));
    pubsub.publish(topics.deadLetters(), deadLetters);

    Run run =
        Run.of(
            Map.of(),
            "subscription",
            "--subscription=" + pubsub.subscriptionPath(topics.deadPull()),
            "--topic=" + pubsub.topicPath("no-such-topic"),
            "--pubsubEndpoint=" + emulator.host(),
            "--waitSeconds=1");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    assertThat(run.err())
        .startsWith(
            "replay stopped: cannot publish to "
                + pubsub.topicPath("no-such-topic")
                + ": NOT_FOUND")
        .contains(
            "Nothing not yet published was acknowledged (so far 0 republished); 2 messages left in");
    assertSame(peek(topics.deadPull(), 2), deadLetters);
  }

  @Test
  void aPubSubThatCannotBeReachedIsAClearError() {
    int closed = LocalClickHouse.freePort();
    Run run =
        Run.of(
            Map.of(),
            "subscription",
            "--subscription=projects/p/subscriptions/s",
            "--topic=projects/p/topics/t",
            "--pubsubEndpoint=127.0.0.1:" + closed,
            "--waitSeconds=1");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("replay stopped: cannot pull from projects/p/subscriptions/s: UNAVAILABLE");
  }

  @Test
  void anEmptySubscriptionSaysThereIsNothingToReplay() {
    Topics topics = topics("empty");
    Run run = replay(topics);
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .isEqualTo(
            "no dead letters to replay: none in "
                + pubsub.subscriptionPath(topics.deadPull())
                + " matches any dead letter\n");
  }

  @Test
  void aLimitAndARateAreKept() throws Exception {
    Topics topics = topics("limited");
    List<Message> deadLetters = new ArrayList<>();
    for (int n = 51; n <= 58; n++) {
      deadLetters.add(fromTheService(original(n), "why"));
    }
    pubsub.publish(topics.deadLetters(), deadLetters);

    long start = System.nanoTime();
    Run run = replay(topics, "--limit=5", "--maxPerSecond=4");
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("republished 5 messages").contains("3 messages left in");
    // Five messages at four a second: the first at once, four more a quarter second apart.
    assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(1_000));
    assertThat(pubsub.pullUntil(topics.check(), 5, ARRIVAL)).hasSize(5);
    assertThat(peek(topics.deadPull(), 3)).hasSize(3);
  }

  @Test
  void wrongNamesAreRefusedBeforeAnythingIsPulled() {
    Run run =
        Run.of(
            Map.of(), "subscription", "--subscription=dead-letters", "--topic=projects/p/topics/t");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "replay: --subscription: expected projects/P/subscriptions/S, got 'dead-letters'\n");
  }
}
