package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.emulator.Events.Row;
import dev.pubsubclickhouse.emulator.Stored.DeadLetter;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.JsonValues;
import dev.pubsubclickhouse.testing.PubSubEmulator;
import dev.pubsubclickhouse.testing.PubSubEmulatorTest;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Messages published to the emulator reach the service jar by real push subscriptions, wrapped and
 * unwrapped ({@code no_wrapper} with {@code write_metadata}) on the same topic, and arrive in the
 * real ClickHouse with the values published: every good message's rows once per subscription, every
 * bad message in the dead-letter table once per subscription, nothing else.
 */
@ClickHouseTest
@PubSubEmulatorTest
class PushThroughEmulatorIT {
  private static final Duration ARRIVAL = Duration.ofSeconds(90);

  private final TestDatabase database;
  private final Sql sql;
  private final PubSubRest pubsub;

  PushThroughEmulatorIT(TestDatabase database, PubSubEmulator emulator) {
    this.database = database;
    this.sql = Sql.of(database);
    this.pubsub = emulator.rest("emulator-tests");
  }

  private ServiceProcess service(String name, String table, Map<String, String> settings)
      throws Exception {
    Stored.createTarget(sql, table);
    Map<String, String> env = Services.writing(database.server(), database.name(), table);
    env.putAll(settings);
    return Services.start(name, env);
  }

  @Test
  void everyMessageArrivesWithItsValuesThroughWrappedAndUnwrappedPush() throws Exception {
    database.execute(Events.deadLetterTable("events_dead_letters"));
    ServiceProcess service =
        service("push", "events", Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", "events_dead_letters"));
    try {
      pubsub.createTopic("events");
      String wrapped =
          pubsub.subscription("events-wrapped", "events").pushTo(service.url()).create();
      String unwrapped =
          pubsub
              .subscription("events-unwrapped", "events")
              .pushTo(service.url())
              .unwrapped()
              .create();
      Events.GoodAndBad messages = Events.goodAndBad();
      List<Message> good = messages.good();
      List<Message> bad = messages.bad();
      Instant before = Instant.now().minusSeconds(1);
      List<String> goodIds = messages.goodIds(pubsub.publish("events", messages.all()));

      List<Row> expected = new ArrayList<>();
      expected.addAll(Events.expectedRows(pubsub.subscriptionPath(wrapped), goodIds, good, false));
      expected.addAll(
          Events.expectedRows(pubsub.subscriptionPath(unwrapped), goodIds, good, false));
      Stored events = new Stored(sql, "events");
      events.awaitSettled(expected.size(), ARRIVAL);
      events.assertHoldsExactly(expected);
      assertThat(
              sql.query(
                  "SELECT min(_pubsub_publish_time) >= '"
                      + before.toString().replace('T', ' ').replace("Z", "")
                      + "', max(_pubsub_publish_time) <= now64(3), uniqExact(_pubsub_message_id, _pubsub_publish_time) = uniqExact(_pubsub_message_id) FROM events"))
          .as("each message's publish time, the same through both subscriptions")
          .isEqualTo("1\t1\t1");

      Stored deadLetters = new Stored(sql, "events_dead_letters");
      deadLetters.awaitAtLeast(2L * bad.size(), ARRIVAL);
      List<String> expectedDeadLetters = new ArrayList<>();
      for (String subscription : List.of(wrapped, unwrapped)) {
        bad.forEach(
            m -> expectedDeadLetters.add(pubsub.subscriptionPath(subscription) + " " + m.text()));
      }
      List<DeadLetter> records = deadLetters.deadLetters();
      assertThat(
              records.stream()
                  .map(
                      r ->
                          subscriptionIn(r.stackTrace(), wrapped, unwrapped) + " " + r.rawMessage())
                  .toList())
          .as("every bad message in the dead-letter table, once per subscription")
          .containsExactlyInAnyOrderElementsOf(expectedDeadLetters);
      for (DeadLetter record : records) {
        if (record.rawMessage().startsWith("not json")) {
          assertThat(record.errorMessage()).as(record.rawMessage()).isNotBlank();
        } else {
          assertThat(record.errorMessage())
              .as(record.rawMessage())
              .contains("column 'id' (UInt32) rejects -");
        }
      }
    } finally {
      Services.stop(service);
    }
  }

  /** The full name of whichever subscription a dead letter's context names. */
  private String subscriptionIn(String context, String... subscriptions) {
    for (String subscription : subscriptions) {
      if (context.contains("subscription=" + pubsub.subscriptionPath(subscription))) {
        return pubsub.subscriptionPath(subscription);
      }
    }
    return "(no subscription in: " + context + ")";
  }

  @Test
  void orderingKeysKeepEachKeysMessagesInPublishOrder() throws Exception {
    ServiceProcess service = service("ordering", "ordered", Map.of());
    try {
      pubsub.createTopic("ordered");
      String wrapped =
          pubsub
              .subscription("ordered-wrapped", "ordered")
              .pushTo(service.url())
              .ordered()
              .create();
      String unwrapped =
          pubsub
              .subscription("ordered-unwrapped", "ordered")
              .pushTo(service.url())
              .unwrapped()
              .ordered()
              .create();
      List<String> keys = List.of("device-a", "device-b", "device-c");
      List<Message> messages = new ArrayList<>();
      for (int seq = 0; seq < 20; seq++) {
        for (int k = 0; k < keys.size(); k++) {
          messages.add(Events.one(20_000 + k * 1_000 + seq).withOrderingKey(keys.get(k)));
        }
      }
      List<String> ids = pubsub.publish("ordered", messages);

      List<Row> expected = new ArrayList<>();
      // The emulator leaves orderingKey out of the wrapped body (Pub/Sub sends it there); it sends
      // it only as a header of unwrapped pushes.
      expected.addAll(Events.expectedRows(pubsub.subscriptionPath(wrapped), ids, messages, false));
      expected.addAll(Events.expectedRows(pubsub.subscriptionPath(unwrapped), ids, messages, true));
      Stored ordered = new Stored(sql, "ordered");
      ordered.awaitSettled(expected.size(), ARRIVAL);
      ordered.assertHoldsExactly(expected);

      // Per subscription and key, the order in which rows were written is the publish order.
      for (String subscription : List.of(wrapped, unwrapped)) {
        for (int k = 0; k < keys.size(); k++) {
          List<String> written =
              List.of(
                  sql.query(
                          "SELECT id FROM ordered WHERE _pubsub_subscription = '"
                              + pubsub.subscriptionPath(subscription)
                              + "' AND intDiv(id - 20000, 1000) = "
                              + k
                              + " ORDER BY _ingested_at, id LIMIT 1 BY id")
                      .split("\n"));
          String key = keys.get(k);
          List<String> published =
              messages.stream()
                  .filter(m -> m.orderingKey().equals(key))
                  .map(m -> JsonValues.read(m.text()).get("id").asText())
                  .collect(Collectors.toList());
          assertThat(written).as(subscription + " " + key).isEqualTo(published);
        }
      }
    } finally {
      Services.stop(service);
    }
  }

  /**
   * A message whose array holds a row that does not fit is dead-lettered whole: none of its rows in
   * the target table, the whole message in the dead-letter table.
   */
  @Test
  void aMessageWithOneBadRowIsDeadLetteredWhole() throws Exception {
    database.execute(Events.deadLetterTable("atomic_dead_letters"));
    ServiceProcess service =
        service("atomic", "atomic", Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", "atomic_dead_letters"));
    try {
      pubsub.createTopic("atomic");
      String subscription =
          pubsub.subscription("atomic-push", "atomic").pushTo(service.url()).create();
      Message mixed =
          Message.of(
              "["
                  + Events.event(30_001)
                  + ","
                  + Events.event(30_002).put("id", -30_002)
                  + ","
                  + Events.event(30_003)
                  + "]");
      Message good = Events.one(30_010);
      List<String> ids = pubsub.publish("atomic", List.of(mixed, good));

      Stored atomic = new Stored(sql, "atomic");
      atomic.awaitSettled(1, ARRIVAL);
      Stored deadLetters = new Stored(sql, "atomic_dead_letters");
      deadLetters.awaitAtLeast(1, ARRIVAL);
      atomic.assertHoldsExactly(
          Events.expectedRows(
              pubsub.subscriptionPath(subscription), ids.subList(1, 2), List.of(good), false));
      assertThat(deadLetters.deadLetters())
          .extracting(DeadLetter::rawMessage)
          .containsExactly(mixed.text());
    } finally {
      Services.stop(service);
    }
  }
}
