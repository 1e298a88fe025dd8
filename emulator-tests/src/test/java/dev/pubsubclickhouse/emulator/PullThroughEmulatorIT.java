package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.emulator.Events.Row;
import dev.pubsubclickhouse.emulator.Stored.DeadLetter;
import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.PubSubEmulator;
import dev.pubsubclickhouse.testing.PubSubEmulatorTest;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.PubSubRest.Received;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pull mode against the emulator, the push suite's scenarios: the service jar pulls a
 * subscription (PUBSUB_SUBSCRIPTION) and every stored row is compared with what was published. Good
 * messages land once, bad ones in the dead-letter table (acked) or, with no sink, in Pub/Sub's own
 * dead-letter topic after max_delivery_attempts; a ClickHouse outage and a SIGTERM mid-batch lose
 * and double nothing; an exactly-once subscription gets every message once. After each case the
 * subscription is empty: every message was acked.
 */
@ClickHouseTest
@PubSubEmulatorTest
class PullThroughEmulatorIT {
  private static final Duration ARRIVAL = Duration.ofSeconds(120);

  /**
   * How long the emulator may keep a message it sent on a stream the client had cancelled before it
   * delivers it again: that is not the stream's ack deadline (20 s from this service) but about two
   * minutes (seen: 115 s after a restart).
   */
  private static final Duration DEAD_STREAM_LEASE = Duration.ofSeconds(150);

  /**
   * SHUTDOWN_GRACE_SECONDS of the services here: 10 s for writing the batches (see
   * ShutdownTimeline), time enough on a loaded machine for every batch a SIGTERM finds.
   */
  private static final Duration GRACE = Duration.ofSeconds(15);

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** The JVM's exit status after a shutdown begun by SIGTERM (128 + 15). */
  private static final int SIGTERM_EXIT = 143;

  private final TestDatabase database;
  private final Sql sql;
  private final PubSubEmulator emulator;
  private final PubSubRest pubsub;
  @TempDir Path directory;

  PullThroughEmulatorIT(TestDatabase database, PubSubEmulator emulator) {
    this.database = database;
    this.sql = Sql.of(database);
    this.emulator = emulator;
    this.pubsub = emulator.rest("emulator-tests");
  }

  /** Settings of a service pulling {@code subscription} into {@code db.table} on {@code server}. */
  private Map<String, String> pulling(
      ClickHouseServer server, String db, String table, String subscription) {
    Map<String, String> env = Services.writing(server, db, table);
    env.put("PUBSUB_SUBSCRIPTION", pubsub.subscriptionPath(subscription));
    env.put("PUBSUB_ENDPOINT", emulator.host());
    env.put("SHUTDOWN_GRACE_SECONDS", Long.toString(GRACE.toSeconds()));
    return env;
  }

  /** Settings of a service pulling {@code subscription} into {@code table} of the test database. */
  private Map<String, String> pulling(String table, String subscription) {
    return pulling(database.server(), database.name(), table, subscription);
  }

  /** Nothing is left to pull: every message was acked (a nacked one would be there again). */
  private void assertDrained(String subscription) throws InterruptedException {
    Thread.sleep(1_500);
    assertThat(pubsub.pull(subscription, 100).stream().map(Received::text).toList())
        .as(subscription + ": messages left unacked")
        .isEmpty();
  }

  @Test
  void goodMessagesLandOnceAndBadOnesInTheDeadLetterTableAcked() throws Exception {
    Stored events = Stored.createTarget(sql, "pulled");
    database.execute(Events.deadLetterTable("pulled_dead_letters"));
    pubsub.createTopic("pulled");
    String subscription = pubsub.subscription("pulled-pull", "pulled").create();
    Map<String, String> env = pulling("pulled", subscription);
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "pulled_dead_letters");
    ServiceProcess service = Services.start("pull", env);
    try {
      Events.GoodAndBad messages = Events.goodAndBad();
      List<Message> good = messages.good();
      List<Message> bad = messages.bad();
      List<Message> all = messages.all();
      List<String> goodIds = messages.goodIds(pubsub.publish("pulled", all));
      List<Row> expected =
          Events.expectedRows(pubsub.subscriptionPath(subscription), goodIds, good, false);
      events.awaitSettled(expected.size(), ARRIVAL);
      events.assertHoldsExactly(expected);
      assertThat(events.written()).as("no message written twice").isEqualTo(expected.size());

      Stored deadLetters = new Stored(sql, "pulled_dead_letters");
      deadLetters.awaitAtLeast(bad.size(), ARRIVAL);
      assertThat(deadLetters.deadLetters().stream().map(DeadLetter::rawMessage).toList())
          .as("every bad message in the dead-letter table, once")
          .containsExactlyInAnyOrderElementsOf(bad.stream().map(Message::text).toList());
      assertThat(service.metric("pubsub_clickhouse_pull_acked_total"))
          .as("acks Pub/Sub confirmed: one per message")
          .isGreaterThanOrEqualTo(all.size());

      assertThat(service.get("/livez").statusCode()).isEqualTo(200);
      HttpResponse<String> post =
          HTTP.send(
              HttpRequest.newBuilder(service.url().resolve("/"))
                  .POST(HttpRequest.BodyPublishers.ofString("{\"message\":{\"data\":\"e30=\"}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).as("a pulling service takes no push").isEqualTo(404);
      assertThat(service.terminate()).as("exit status after SIGTERM").isEqualTo(SIGTERM_EXIT);
      assertDrained(subscription);
    } finally {
      Services.stop(service);
    }
  }

  @Test
  void withNoSinkABadMessageIsNackedUntilPubSubDeadLettersIt() throws Exception {
    Stored refusals = Stored.createTarget(sql, "pull_refusals");
    PubSubDeadLetterTopic deadLetterTopic = new PubSubDeadLetterTopic(pubsub, "pull-refusals");
    String subscription =
        deadLetterTopic
            .policyOf(pubsub.subscription("pull-refusals-pull", "pull-refusals"))
            .create();
    ServiceProcess service =
        Services.start("pull-refusals", pulling("pull_refusals", subscription));
    try {
      List<Message> good = Events.messages(1, 20);
      List<Message> bad = List.of(Events.negativeId(101), Events.notJson(102));
      List<String> goodIds = pubsub.publish("pull-refusals", good);
      pubsub.publish("pull-refusals", bad);

      deadLetterTopic.assertHoldsExactly(bad, subscription, ARRIVAL);
      List<Row> expected =
          Events.expectedRows(pubsub.subscriptionPath(subscription), goodIds, good, false);
      refusals.awaitSettled(expected.size(), ARRIVAL);
      refusals.assertHoldsExactly(expected);
      assertThat(service.metric("pubsub_clickhouse_pull_nacked_total"))
          .as("each refused message nacked at each of its five deliveries")
          .isGreaterThanOrEqualTo(5L * bad.size());
      assertThat(service.terminate()).isEqualTo(SIGTERM_EXIT);
      assertDrained(subscription);
    } finally {
      Services.stop(service);
    }
  }

  @Test
  void clickHouseDownWhileMessagesKeepComingLosesAndDoublesNothing() throws Exception {
    try (Outage.OwnClickHouse clickHouse = new Outage.OwnClickHouse(directory, "pull_outage")) {
      pubsub.createTopic("pull-outage");
      String subscription = pubsub.subscription("pull-outage-pull", "pull-outage").create();
      ServiceProcess service =
          Services.start(
              "pull-clickhouse-down",
              pulling(clickHouse.server, "default", "pull_outage", subscription));
      try {
        List<Message> messages = Events.messages(1, 300);
        // ClickHouse goes down after the first third.
        List<String> published =
            clickHouse.publishWhileDown(pubsub, "pull-outage", messages, service);

        List<Row> expected =
            Events.expectedRows(pubsub.subscriptionPath(subscription), published, messages, false);
        clickHouse.target.awaitSettled(expected.size(), ARRIVAL);
        clickHouse.target.assertHoldsExactly(expected);
        assertThat(service.metric("pubsub_clickhouse_pull_nacked_total"))
            .as("messages nacked while ClickHouse was down, delivered again afterwards")
            .isPositive();
        assertThat(service.terminate()).isEqualTo(SIGTERM_EXIT);
        assertDrained(subscription);
      } finally {
        Services.stop(service);
      }
    }
  }

  /**
   * SIGTERM while messages wait in batches: the stopping service writes and acks them (or nacks
   * what it cannot), exits within its grace period, and a restarted service stores what came
   * meanwhile. Every row once, and none written twice: what was written before the exit was acked.
   *
   * <p>The emulator fails on a stream the client cancels (a NoSuchMethodError in its log) and keeps
   * it as a subscriber: what is published while the service is down goes out on that dead stream
   * and comes again only after {@link #DEAD_STREAM_LEASE}, which the wait allows for. Real Pub/Sub
   * closes such a stream and delivers its messages again after the stream's ack deadline.
   */
  @Test
  void sigtermMidBatchWritesOrNacksWhatItHoldsAndARestartStoresTheRestOnce() throws Exception {
    Stored stopped = Stored.createTarget(sql, "pull_sigterm");
    pubsub.createTopic("pull-sigterm");
    String subscription = pubsub.subscription("pull-sigterm-pull", "pull-sigterm").create();
    Map<String, String> env = pulling("pull_sigterm", subscription);
    // Batches that wait, so that SIGTERM finds messages held in them.
    env.put("BATCH_LINGER_MS", "400");
    env.put("BATCH_MAX_WAIT_MS", "400");
    env.put("BATCH_MAX_ROWS", "50");
    ServiceProcess service = Services.start("pull-sigterm", env);
    try {
      List<Message> before = Events.messages(1, 600);
      List<String> ids = new ArrayList<>(pubsub.publish("pull-sigterm", before));
      stopped.awaitAtLeast(100, ARRIVAL);
      long waiting = 0;
      for (int i = 0; i < 500 && waiting <= 0; i++) {
        waiting = service.metric("pubsub_clickhouse_waiting_requests");
      }
      assertThat(waiting).as("messages waiting in batches at SIGTERM").isPositive();
      service.note("SIGTERM at " + Instant.now() + " with " + waiting + " messages waiting");
      long sigterm = System.nanoTime();
      assertThat(service.terminate()).as("exit status after SIGTERM").isEqualTo(SIGTERM_EXIT);
      assertThat(Duration.ofNanos(System.nanoTime() - sigterm).toSeconds())
          .as("seconds from SIGTERM to exit (SHUTDOWN_GRACE_SECONDS=%d)", GRACE.toSeconds())
          .isLessThanOrEqualTo(GRACE.toSeconds());
      assertThat(service.output()).contains("pull stopped");
      long writtenAtStop = stopped.written();

      List<Message> meanwhile = Events.messages(10_000, 100);
      ids.addAll(pubsub.publish("pull-sigterm", meanwhile));
      List<Message> all = new ArrayList<>(before);
      all.addAll(meanwhile);
      List<Row> expected =
          Events.expectedRows(pubsub.subscriptionPath(subscription), ids, all, false);
      service.start();
      stopped.awaitSettled(expected.size(), ARRIVAL.plus(DEAD_STREAM_LEASE));
      stopped.assertHoldsExactly(expected);
      assertThat(stopped.written())
          .as(
              () ->
                  "no row written twice: what the stopping service wrote, it acked before it"
                      + " exited. Inserts holding a row written twice: "
                      + stopped.writtenMoreThanOnce()
                      + "\nThe service's log:\n"
                      + service.output())
          .isEqualTo(expected.size());
      System.out.printf(
          "SIGTERM with %d messages waiting, %d of %d rows written at exit%n",
          waiting, writtenAtStop, expected.size());
      assertThat(service.terminate()).isEqualTo(SIGTERM_EXIT);
      assertDrained(subscription);
    } finally {
      Services.stop(service);
    }
  }

  /**
   * A subscription that does not exist stops the subscriber for good: /livez says so, and only a
   * restart (the liveness probe's) can pull again; /healthz still says ClickHouse answers.
   */
  @Test
  void aSubscriberThatFailedFailsTheLivenessProbe() throws Exception {
    Stored.createTarget(sql, "pull_missing");
    ServiceProcess service =
        Services.start("pull-missing", pulling("pull_missing", "no-such-subscription"));
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      HttpResponse<String> livez = service.get("/livez");
      while (livez.statusCode() == 200 && System.nanoTime() < deadline) {
        Thread.sleep(200);
        livez = service.get("/livez");
      }
      assertThat(livez.statusCode()).isEqualTo(503);
      assertThat(livez.body()).startsWith("the subscriber failed:").contains("NOT_FOUND");
      assertThat(service.get("/healthz").statusCode()).isEqualTo(200);
    } finally {
      Services.stop(service);
    }
  }

  @Test
  void anExactlyOnceSubscriptionGetsEveryMessageOnceWithEveryAckConfirmed() throws Exception {
    Stored once = Stored.createTarget(sql, "pull_once");
    pubsub.createTopic("pull-once");
    String subscription = pubsub.subscription("pull-once-pull", "pull-once").exactlyOnce().create();
    ServiceProcess service = Services.start("pull-once", pulling("pull_once", subscription));
    try {
      List<Message> messages = Events.messages(1, 200);
      List<Row> expected =
          Events.expectedRows(
              pubsub.subscriptionPath(subscription),
              pubsub.publish("pull-once", messages),
              messages,
              false);
      once.awaitSettled(expected.size(), ARRIVAL);
      once.assertHoldsExactly(expected);
      assertThat(once.written()).as("no message written twice").isEqualTo(expected.size());
      assertThat(service.metric("pubsub_clickhouse_pull_acked_total"))
          .as("every ack confirmed")
          .isEqualTo(messages.size());
      assertThat(service.metric("pubsub_clickhouse_pull_ack_failures_total")).isZero();
      assertThat(service.terminate()).isEqualTo(SIGTERM_EXIT);
      assertDrained(subscription);
    } finally {
      Services.stop(service);
    }
  }
}
