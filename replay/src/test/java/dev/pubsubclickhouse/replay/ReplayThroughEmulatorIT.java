package dev.pubsubclickhouse.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.EventValues;
import dev.pubsubclickhouse.testing.JsonValues;
import dev.pubsubclickhouse.testing.PubSubEmulator;
import dev.pubsubclickhouse.testing.PubSubEmulatorTest;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.PubSubRest.Received;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The whole way round, through the Pub/Sub emulator and the service jar: messages the service
 * cannot write because the table is too narrow become dead letters (in the dead-letter table, or in
 * Pub/Sub's dead-letter topic); the table is fixed; {@code replay.jar} brings them back; and the
 * target table holds every published row once under FINAL, value for value.
 */
@ClickHouseTest
@PubSubEmulatorTest
class ReplayThroughEmulatorIT {
  private static final Duration ARRIVAL = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TestDatabase database;
  private final Sql sql;
  private final PubSubEmulator emulator;
  private final PubSubRest pubsub;

  ReplayThroughEmulatorIT(TestDatabase database, PubSubEmulator emulator) {
    this.database = database;
    this.sql = Sql.of(database);
    this.emulator = emulator;
    this.pubsub = emulator.rest("replay-tests");
  }

  /** The exactly-once layout, with an id column too narrow for some events (the fault). */
  private void createTarget(String table) {
    sql.query(
        "CREATE TABLE "
            + table
            + " (id UInt8, name String, amount Decimal(12, 2), at DateTime64(3, 'UTC'),"
            + " _pubsub_message_id String, _pubsub_row_index UInt32, _pubsub_subscription String,"
            + " _pubsub_publish_time DateTime64(3, 'UTC'), _pubsub_attributes Map(String, String),"
            + " _pubsub_ordering_key String, _ingested_at DateTime64(3, 'UTC'))"
            + " ENGINE = ReplacingMergeTree(_ingested_at)"
            + " ORDER BY (_pubsub_subscription, _pubsub_message_id, _pubsub_row_index)");
    sql.query("SYSTEM STOP MERGES " + table);
  }

  /**
   * The fix: ids up to 4 billion. The column's parts are rewritten by a mutation, which needs the
   * merges the tests stop: running while it runs, stopped again after.
   */
  private void widen(String table) {
    sql.query("SYSTEM START MERGES " + table);
    sql.query("ALTER TABLE " + table + " MODIFY COLUMN id UInt32");
    sql.query("SYSTEM STOP MERGES " + table);
  }

  private Map<String, String> clickHouse(String table) {
    Map<String, String> env = database.server().environment(database.name());
    env.put("CLICKHOUSE_TABLE", table);
    return env;
  }

  private ServiceProcess start(String name, Map<String, String> env) throws Exception {
    Path work = Files.createDirectories(Path.of("target", "replay-runs", name));
    Map<String, String> settings = new HashMap<>(env);
    settings.put("MAX_RETRIES", "1");
    settings.put("INSERT_TIMEOUT_MS", "2000");
    settings.put("ANSWER_TIMEOUT_MS", "5000");
    return ServiceProcess.small(settings, work.resolve("service.log")).start();
  }

  private static String event(long id) {
    return "{\"id\":"
        + id
        + ",\"name\":\"event "
        + id
        + " · ✓\",\"amount\":\""
        + id
        + "."
        + (10 + id % 90)
        + "\",\"at\":\""
        + Instant.parse("2026-01-15T00:00:00Z").plusMillis(id * 1_001L)
        + "\"}";
  }

  private static Message one(long id) {
    return Message.of(event(id))
        .withAttributes(Map.of("source", "sensor-" + id % 7, "trace", "t-" + id));
  }

  private static Message several(long... ids) {
    List<String> events = new ArrayList<>();
    for (long id : ids) {
      events.add(event(id));
    }
    return Message.of("[" + String.join(",", events) + "]")
        .withAttributes(Map.of("source", "batch-" + ids[0]));
  }

  /** A stored row, without the publish time (compared on its own). */
  private record Row(
      String subscription,
      String messageId,
      long rowIndex,
      EventValues event,
      Map<String, String> attributes) {}

  private static List<Row> expected(String subscription, List<String> ids, List<Message> sent) {
    List<Row> rows = new ArrayList<>();
    for (int m = 0; m < sent.size(); m++) {
      List<JsonNode> events = JsonValues.events(JsonValues.read(sent.get(m).text()));
      for (int i = 0; i < events.size(); i++) {
        JsonNode event = events.get(i);
        rows.add(
            new Row(
                subscription,
                ids == null ? "" : ids.get(m),
                i,
                EventValues.published(event),
                sent.get(m).attributes()));
      }
    }
    return rows;
  }

  /**
   * Every row under FINAL; {@code withIds} false blanks message ids (a republished message has a
   * new one).
   */
  private List<Row> rowsFinal(String table, boolean withIds) {
    List<Row> rows = new ArrayList<>();
    for (JsonNode row :
        sql.jsonRows(
            "SELECT _pubsub_subscription AS s, _pubsub_message_id AS m, _pubsub_row_index AS i, id,"
                + " name, toString(amount) AS amount, toString(at) AS at,"
                + " _pubsub_attributes AS attributes FROM "
                + table
                + " FINAL")) {
      rows.add(
          new Row(
              row.get("s").asText(),
              withIds ? row.get("m").asText() : "",
              row.get("i").asLong(),
              EventValues.stored(row),
              Map.copyOf(JsonValues.texts(row.get("attributes")))));
    }
    return rows;
  }

  private void awaitCount(String query, long expected) throws InterruptedException {
    long deadline = System.nanoTime() + ARRIVAL.toNanos();
    while (System.nanoTime() < deadline) {
      Long count = sql.numberOrNull(query);
      if (count != null && count >= expected) {
        return;
      }
      Thread.sleep(200);
    }
  }

  @Test
  void deadLettersFromTheTableLandOnceUnderFinalWithTheirOwnIdsAfterTheFix() throws Exception {
    createTarget("events");
    Map<String, String> env = clickHouse("events");
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "events_dead");
    env.put("CREATE_DEAD_LETTER_TABLE", "true");
    ServiceProcess service = start("table", env);
    List<Message> good = new ArrayList<>();
    List<Message> bad = new ArrayList<>();
    Message notJson = Message.of("not json at all").withAttributes(Map.of("source", "broken"));
    String push;
    List<String> goodIds;
    List<String> badIds;
    String notJsonId;
    try {
      pubsub.createTopic("events");
      push = pubsub.subscription("events-push", "events").pushTo(service.url()).create();
      for (long id = 1; id <= 20; id++) {
        good.add(one(id));
      }
      for (long id = 300; id < 310; id++) {
        bad.add(one(id));
      }
      bad.add(several(30, 400, 31)); // one row too wide: the whole message waits
      goodIds = pubsub.publish("events", good);
      badIds = pubsub.publish("events", bad);
      notJsonId = pubsub.publish("events", List.of(notJson)).get(0);
      awaitCount("SELECT count() FROM events_dead", bad.size() + 1);
      awaitCount("SELECT count() FROM events FINAL", good.size());
    } finally {
      service.terminate();
    }
    String subscription = pubsub.subscriptionPath(push);
    assertThat(rowsFinal("events", true))
        .containsExactlyInAnyOrderElementsOf(expected(subscription, goodIds, good));
    // The service filled the dead-letter table's new columns with the message as delivered.
    for (int m = 0; m < bad.size(); m++) {
      JsonNode row =
          sql.jsonRows(
                  "SELECT raw_message, subscription, toJSONString(attributes) AS a, ordering_key,"
                      + " publish_time IS NOT NULL AS has_time FROM events_dead WHERE message_id = '"
                      + badIds.get(m)
                      + "'")
              .get(0);
      assertThat(row.get("raw_message").asText()).isEqualTo(bad.get(m).text());
      assertThat(row.get("subscription").asText()).isEqualTo(subscription);
      assertThat(JsonValues.read(row.get("a").asText()))
          .isEqualTo(JSON.valueToTree(bad.get(m).attributes()));
      assertThat(row.get("has_time").asInt()).isEqualTo(1);
    }
    Map<String, String> publishTimes = new HashMap<>();
    for (JsonNode row :
        sql.jsonRows("SELECT message_id, toString(publish_time) AS p FROM events_dead")) {
      publishTimes.put(row.get("message_id").asText(), row.get("p").asText());
    }

    widen("events");
    Path log = Files.createDirectories(Path.of("target", "replay-runs", "table"));
    env.remove("CREATE_DEAD_LETTER_TABLE");
    Run replay = ReplayJar.run(env, log.resolve("replay-1.log"), "table");
    Thread.sleep(1_100); // a run leaves dead letters of its own start second to the next one
    Run again = ReplayJar.run(env, log.resolve("replay-2.log"), "table");

    assertThat(replay.exitCode()).as(replay.out()).isEqualTo(3);
    assertThat(replay.out())
        .contains(
            "replayed 12 dead letters from "
                + database.name()
                + ".events_dead: 11 written to "
                + database.name()
                + ".events, 1 still do not fit");
    List<Message> all = new ArrayList<>(good);
    all.addAll(bad);
    List<String> allIds = new ArrayList<>(goodIds);
    allIds.addAll(badIds);
    List<Row> expected = expected(subscription, allIds, all);
    assertThat(sql.number("SELECT count() FROM events FINAL")).isEqualTo(expected.size());
    assertThat(rowsFinal("events", true)).containsExactlyInAnyOrderElementsOf(expected);
    for (JsonNode row :
        sql.jsonRows(
            "SELECT _pubsub_message_id AS m, toString(_pubsub_publish_time) AS p FROM events FINAL"
                + " WHERE _pubsub_message_id IN ('"
                + String.join("','", badIds)
                + "')")) {
      assertThat(row.get("p").asText())
          .as("the publish time Pub/Sub gave message " + row.get("m").asText())
          .isEqualTo(publishTimes.get(row.get("m").asText()));
    }
    assertThat(again.exitCode()).as(again.out()).isEqualTo(3);
    assertThat(sql.number("SELECT count() FROM events"))
        .as("the second run wrote nothing")
        .isEqualTo(expected.size());
    JsonNode kept =
        sql.jsonRows("SELECT raw_message, message_id, subscription, error_message FROM events_dead")
            .get(0);
    assertThat(sql.number("SELECT count() FROM events_dead")).isEqualTo(1);
    assertThat(kept.get("raw_message").asText()).isEqualTo(notJson.text());
    assertThat(kept.get("message_id").asText()).isEqualTo(notJsonId);
    assertThat(kept.get("subscription").asText()).isEqualTo(subscription);
    assertThat(kept.get("error_message").asText()).startsWith("payload is not valid JSON");
  }

  @Test
  void deadLettersFromPubSubsPolicyAreRepublishedWithTheirAttributesAndLand() throws Exception {
    createTarget("orders");
    ServiceProcess service = start("subscription", clickHouse("orders"));
    List<Message> good = new ArrayList<>();
    List<Message> bad = new ArrayList<>();
    String push;
    try {
      pubsub.createTopic("orders");
      pubsub.createTopic("orders-dead");
      String deadPull = pubsub.subscription("orders-dead-pull", "orders-dead").create();
      // No dead-letter sink: the service refuses what it cannot write, and after five attempts
      // Pub/Sub's own dead-letter policy moves it.
      push =
          pubsub
              .subscription("orders-push", "orders")
              .pushTo(service.url())
              .deadLetters("orders-dead", 5)
              .create();
      for (long id = 101; id <= 110; id++) {
        good.add(one(id));
      }
      for (long id = 1_001; id <= 1_004; id++) {
        bad.add(one(id));
      }
      pubsub.publish("orders", good);
      pubsub.publish("orders", bad);
      List<Received> moved = new ArrayList<>();
      long deadline = System.nanoTime() + ARRIVAL.toNanos();
      while (moved.size() < bad.size() && System.nanoTime() < deadline) {
        pubsub.handBack(deadPull, moved);
        Thread.sleep(500);
        moved = pubsub.pull(deadPull, 100);
      }
      pubsub.handBack(deadPull, moved);
      assertThat(moved).hasSize(bad.size());
      awaitCount("SELECT count() FROM orders FINAL", good.size());

      widen("orders");
      Path log = Files.createDirectories(Path.of("target", "replay-runs", "subscription"));
      Run replay =
          ReplayJar.run(
              Map.of(),
              log.resolve("replay.log"),
              "subscription",
              "--subscription=" + pubsub.subscriptionPath(deadPull),
              "--topic=" + pubsub.topicPath("orders"),
              "--pubsubEndpoint=" + emulator.host(),
              "--waitSeconds=2");

      assertThat(replay.exitCode()).as(replay.out()).isZero();
      assertThat(replay.out()).contains("republished " + bad.size() + " messages");
      List<Message> all = new ArrayList<>(good);
      all.addAll(bad);
      awaitCount("SELECT count() FROM orders FINAL", all.size());
      assertThat(pubsub.pull(deadPull, 10)).as("every dead letter acknowledged").isEmpty();
    } finally {
      service.terminate();
    }
    // A republished message is a new message (a new id): compared without ids, value for value,
    // attributes exactly as published (nothing of Pub/Sub's dead-lettering).
    List<Message> all = new ArrayList<>(good);
    all.addAll(bad);
    assertThat(rowsFinal("orders", false))
        .containsExactlyInAnyOrderElementsOf(expected(pubsub.subscriptionPath(push), null, all));
  }
}
