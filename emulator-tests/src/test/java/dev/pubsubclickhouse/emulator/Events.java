package dev.pubsubclickhouse.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
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
  private static final DateTimeFormatter CLICKHOUSE_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

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

  /** The columns a row takes from its event. */
  record EventValues(long id, String name, BigDecimal amount, String at) {}

  /**
   * The rows the good {@code messages} (published with {@code ids}) must be in {@code
   * subscription}; {@code orderingKeys} says whether the subscription reports ordering keys.
   */
  static List<Row> expectedRows(
      String subscription, List<String> ids, List<Message> messages, boolean orderingKeys) {
    List<Row> rows = new ArrayList<>();
    for (int m = 0; m < messages.size(); m++) {
      Message message = messages.get(m);
      JsonNode data = read(message.text());
      List<JsonNode> events = new ArrayList<>();
      if (data.isArray()) {
        data.forEach(events::add);
      } else {
        events.add(data);
      }
      for (int index = 0; index < events.size(); index++) {
        JsonNode event = events.get(index);
        rows.add(
            new Row(
                subscription,
                ids.get(m),
                index,
                new EventValues(
                    event.get("id").asLong(),
                    event.get("name").asText(),
                    new BigDecimal(event.get("amount").asText()).stripTrailingZeros(),
                    CLICKHOUSE_TIME.format(Instant.parse(event.get("at").asText()))),
                message.attributes(),
                orderingKeys ? message.orderingKey() : ""));
      }
    }
    return rows;
  }

  static JsonNode read(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
