package dev.pubsubclickhouse.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.testing.EventValues;
import dev.pubsubclickhouse.testing.JsonValues;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The messages the tests publish, and — computed from what was published, not from what the service
 * did — the rows each must become. A good message is one event (a JSON object) or several (a JSON
 * array); every event has its own id, and its values exercise a few types.
 */
final class Events {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant EPOCH = Instant.parse("2026-01-15T00:00:00Z");

  private Events() {}

  /**
   * The exactly-once layout of sql/logs_exactly_once.sql on a table of events: one row per
   * (subscription, message id, row index) under FINAL, however often a message was written.
   */
  static String targetTable(String name) {
    return "CREATE TABLE "
        + name
        + " (id UInt32, name String, amount Decimal(12, 2), at DateTime64(3, 'UTC'),"
        + " _pubsub_message_id String, _pubsub_row_index UInt32, _pubsub_subscription String,"
        + " _pubsub_publish_time DateTime64(3, 'UTC'), _pubsub_attributes Map(String, String),"
        + " _pubsub_ordering_key String, _ingested_at DateTime64(3, 'UTC'))"
        + " ENGINE = ReplacingMergeTree(_ingested_at)"
        + " ORDER BY (_pubsub_subscription, _pubsub_message_id, _pubsub_row_index)";
  }

  /** The seed's four-column dead-letter table. */
  static String deadLetterTable(String name) {
    return "CREATE TABLE "
        + name
        + " (raw_message String, error_message String, stack_trace String, failed_at DateTime)"
        + " ENGINE = MergeTree ORDER BY failed_at";
  }

  /** Event {@code id} as its JSON object. */
  static ObjectNode event(int id) {
    ObjectNode event = JSON.createObjectNode();
    event.put("id", id);
    event.put("name", "event " + id + " · café ✓");
    event.put("amount", id + "." + (11 + id % 89));
    event.put("at", EPOCH.plusMillis(id * 1_001L).toString());
    return event;
  }

  /** One event, with attributes. */
  static Message one(int id) {
    return Message.of(event(id).toString()).withAttributes(attributes(id));
  }

  /** Events {@code firstId} .. {@code firstId + count - 1} as one message (a JSON array). */
  static Message several(int firstId, int count) {
    ArrayNode array = JSON.createArrayNode();
    for (int i = 0; i < count; i++) {
      array.add(event(firstId + i));
    }
    return Message.of(array.toString()).withAttributes(attributes(firstId));
  }

  /** {@code count} messages from event {@code firstId} on; every fifth holds three events. */
  static List<Message> messages(int firstId, int count) {
    List<Message> messages = new ArrayList<>();
    int id = firstId;
    for (int i = 1; i <= count; i++) {
      if (i % 5 == 0) {
        messages.add(several(id, 3));
        id += 3;
      } else {
        messages.add(one(id++));
      }
    }
    return messages;
  }

  /**
   * Messages to publish in the order of {@code all}: the {@code good} ones and, among them, the
   * {@code bad} ones the target table refuses; {@code goodPositions} are the good ones' places in
   * {@code all}.
   */
  record GoodAndBad(
      List<Message> all, List<Message> good, List<Message> bad, List<Integer> goodPositions) {
    /** The good messages' ids, of the {@code ids} that publishing {@code all} returned. */
    List<String> goodIds(List<String> ids) {
      return goodPositions.stream().map(ids::get).toList();
    }
  }

  /**
   * 120 good messages (every tenth an array of three events) with a bad one after every twelfth,
   * alternately not JSON and with a negative id.
   */
  static GoodAndBad goodAndBad() {
    List<Message> all = new ArrayList<>();
    List<Integer> goodPositions = new ArrayList<>();
    List<Message> good = new ArrayList<>();
    List<Message> bad = new ArrayList<>();
    for (int i = 1; i <= 120; i++) {
      Message message = i % 10 == 0 ? several(10_000 + i * 10, 3) : one(i);
      goodPositions.add(all.size());
      good.add(message);
      all.add(message);
      if (i % 12 == 0) {
        Message refused = i % 24 == 0 ? notJson(500 + i) : negativeId(500 + i);
        bad.add(refused);
        all.add(refused);
      }
    }
    return new GoodAndBad(all, good, bad, goodPositions);
  }

  /** An event whose id is negative: the UInt32 column refuses it. */
  static Message negativeId(int id) {
    ObjectNode event = event(id);
    event.put("id", -id);
    return Message.of(event.toString()).withAttributes(attributes(id));
  }

  /** Data that is not JSON. */
  static Message notJson(int id) {
    return Message.of("not json " + id).withAttributes(attributes(id));
  }

  /**
   * Lower case: an unwrapped push carries attributes as HTTP headers, whose names are not cased.
   */
  private static Map<String, String> attributes(int id) {
    return Map.of("source", "sensor-" + id % 7, "trace", "t-" + id);
  }

  /** A stored row: what the tests compare, value by value. */
  record Row(
      String subscription,
      String messageId,
      long rowIndex,
      EventValues event,
      Map<String, String> attributes,
      String orderingKey) {}

  /**
   * The rows the good {@code messages} (published with {@code ids}) must be in {@code
   * subscription}; {@code orderingKeys} says whether the subscription reports ordering keys.
   */
  static List<Row> expectedRows(
      String subscription, List<String> ids, List<Message> messages, boolean orderingKeys) {
    List<Row> rows = new ArrayList<>();
    for (int m = 0; m < messages.size(); m++) {
      Message message = messages.get(m);
      List<JsonNode> events = JsonValues.events(JsonValues.read(message.text()));
      for (int index = 0; index < events.size(); index++) {
        JsonNode event = events.get(index);
        rows.add(
            new Row(
                subscription,
                ids.get(m),
                index,
                EventValues.published(event),
                message.attributes(),
                orderingKeys ? message.orderingKey() : ""));
      }
    }
    return rows;
  }
}
