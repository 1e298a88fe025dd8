package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.emulator.Events.Row;
import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.PubSubEmulator;
import dev.pubsubclickhouse.testing.PubSubEmulatorTest;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pub/Sub delivers at least once; the exactly-once layout (ReplacingMergeTree ordered by
 * subscription, message id and row index, sql/logs_exactly_once.sql) makes {@code SELECT count()
 * FROM t FINAL} equal the rows published however often a message was written: after a replay (seek)
 * that delivers every message again, after the service is killed mid-batch, and after ClickHouse
 * went down while messages kept coming. Each case compares every stored row with what was
 * published.
 */
@ClickHouseTest
@PubSubEmulatorTest
class ExactlyOnceThroughEmulatorIT {
  private static final Duration ARRIVAL = Duration.ofSeconds(120);

  private final TestDatabase database;
  private final PubSubRest pubsub;
  @TempDir Path directory;

  ExactlyOnceThroughEmulatorIT(TestDatabase database, PubSubEmulator emulator) {
    this.database = database;
    this.pubsub = emulator.rest("emulator-tests");
  }

  /** Push subscriptions on {@code topic}: two wrapped, one unwrapped; returns their names. */
  private List<String> subscribe(String topic, ServiceProcess service, boolean retainAcked) {
    pubsub.createTopic(topic);
    List<String> names = new ArrayList<>();
    for (String form : List.of("wrapped-1", "wrapped-2", "unwrapped")) {
      PubSubRest.Subscription subscription =
          pubsub.subscription(topic + "-" + form, topic).pushTo(service.url());
      if (form.equals("unwrapped")) {
        subscription.unwrapped();
      }
      if (retainAcked) {
        subscription.retainAcked();
      }
      names.add(subscription.create());
    }
    return names;
  }

  private List<Row> expected(List<String> subscriptions, List<String> ids, List<Message> messages) {
    List<Row> rows = new ArrayList<>();
    for (String subscription : subscriptions) {
      rows.addAll(Events.expectedRows(pubsub.subscriptionPath(subscription), ids, messages, false));
    }
    return rows;
  }

  private ServiceProcess service(String name, ClickHouseServer server, String db, String table)
      throws Exception {
    return Services.start(name, Services.writing(server, db, table));
  }

  @Test
  void aReplayDeliversEveryMessageAgainAndFinalHoldsEachRowOnce() throws Exception {
    Sql sql = Sql.of(database);
    Stored replayed = Stored.createTarget(sql, "replayed");
    ServiceProcess service = service("replay", database.server(), database.name(), "replayed");
    try {
      List<String> subscriptions = subscribe("replayed", service, true);
      List<Message> messages = Events.messages(1, 100);
      Instant before = Instant.now().minusSeconds(1);
      List<Row> expected = expected(subscriptions, pubsub.publish("replayed", messages), messages);
      replayed.awaitSettled(expected.size(), ARRIVAL);
      replayed.assertHoldsExactly(expected);
      long writtenBefore = replayed.written();

      for (String subscription : subscriptions) {
        pubsub.seek(subscription, before);
      }

      replayed.awaitAtLeast(writtenBefore + expected.size(), ARRIVAL);
      replayed.awaitSettled(expected.size(), ARRIVAL);
      assertThat(replayed.written())
          .as("every row written again by the replay")
          .isGreaterThanOrEqualTo(writtenBefore + expected.size());
      replayed.assertHoldsExactly(expected);
    } finally {
      Services.stop(service);
    }
  }

  @Test
  void aServiceKilledMidBatchLeavesEveryRowOnceUnderFinal() throws Exception {
    Sql sql = Sql.of(database);
    Stored killed = Stored.createTarget(sql, "killed");
    ServiceProcess service = service("sigkill", database.server(), database.name(), "killed");
    try {
      List<String> subscriptions = subscribe("killed", service, false);
      List<Message> messages = Events.messages(1, 300);
      List<Row> expected = expected(subscriptions, pubsub.publish("killed", messages), messages);
      killed.awaitAtLeast(expected.size() / 3, ARRIVAL);
      long waiting = 0;
      for (int i = 0; i < 500 && waiting == 0; i++) {
        waiting = service.metric("pubsub_clickhouse_waiting_requests");
      }
      service.note("SIGKILL with " + waiting + " requests waiting");
      service.kill();
      long writtenAtKill = killed.written();
      Thread.sleep(1_000);
      service.start();

      killed.awaitSettled(expected.size(), ARRIVAL);
      killed.assertHoldsExactly(expected);
      System.out.printf(
          "SIGKILL with %d requests waiting at %d of %d rows; %d rows written, %d under FINAL%n",
          waiting, writtenAtKill, expected.size(), killed.written(), killed.countFinal());
    } finally {
      Services.stop(service);
    }
  }

  @Test
  void clickHouseDownWhileMessagesKeepComingLosesAndDoublesNothing() throws Exception {
    try (Outage.OwnClickHouse clickHouse = new Outage.OwnClickHouse(directory, "outage")) {
      ServiceProcess service = service("clickhouse-down", clickHouse.server, "default", "outage");
      try {
        List<String> subscriptions = subscribe("outage", service, false);
        List<Message> messages = Events.messages(1, 300);

        // ClickHouse goes down after the first third.
        List<String> published = clickHouse.publishWhileDown(pubsub, "outage", messages, service);

        List<Row> expected = expected(subscriptions, published, messages);
        clickHouse.target.awaitSettled(expected.size(), ARRIVAL);
        clickHouse.target.assertHoldsExactly(expected);
        assertThat(service.metric("pubsub_clickhouse_unavailable_total"))
            .as("pushes answered 503 while ClickHouse was down, redelivered afterwards")
            .isPositive();
      } finally {
        Services.stop(service);
      }
    }
  }
}
