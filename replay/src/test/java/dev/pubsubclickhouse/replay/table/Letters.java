package dev.pubsubclickhouse.replay.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.testing.EventValues;
import dev.pubsubclickhouse.testing.JsonValues;
import dev.pubsubclickhouse.testing.Sql;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Dead letters as the service writes them, put into a dead-letter table with the tests' own SQL,
 * and — computed from them alone — the rows each must become in the target table.
 */
final class Letters {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter SECONDS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

  private Letters() {}

  /** The target table, in the exactly-once layout (merges stopped: every copy stays countable). */
  static void createTarget(Sql sql, String table) {
    sql.query(
        "CREATE TABLE "
            + table
            + " (id UInt32, name String, amount Decimal(12, 2), at DateTime64(3, 'UTC'),"
            + " _pubsub_message_id String, _pubsub_row_index UInt32, _pubsub_subscription String,"
            + " _pubsub_publish_time DateTime64(3, 'UTC'), _pubsub_attributes Map(String, String),"
            + " _pubsub_ordering_key String, _pubsub_delivery_attempt UInt32,"
            + " _ingested_at DateTime64(3, 'UTC'))"
            + " ENGINE = ReplacingMergeTree(_ingested_at)"
            + " ORDER BY (_pubsub_subscription, _pubsub_message_id, _pubsub_row_index)");
    sql.query("SYSTEM STOP MERGES " + table);
  }

  /** The dead-letter table as sql/dead_letter_table.sql makes it. */
  static void createDeadLetterTable(Sql sql, String table) {
    sql.query(
        "CREATE TABLE "
            + table
            + " (raw_message String, error_message String, stack_trace String, failed_at DateTime,"
            + " message_id String DEFAULT '', publish_time Nullable(DateTime64(3, 'UTC')),"
            + " attributes Map(String, String) DEFAULT map(), ordering_key String DEFAULT '',"
            + " subscription String DEFAULT '', delivery_attempt Nullable(UInt32))"
            + " ENGINE = MergeTree ORDER BY failed_at");
  }

  /** The seed's dead-letter table: four columns. */
  static void createSeedDeadLetterTable(Sql sql, String table) {
    sql.query(
        "CREATE TABLE "
            + table
            + " (raw_message String, error_message String, stack_trace String, failed_at DateTime)"
            + " ENGINE = MergeTree ORDER BY failed_at");
  }

  /** A message that became a dead letter. */
  record Letter(
      String data,
      String messageId,
      Instant publishTime,
      Map<String, String> attributes,
      String orderingKey,
      String subscription,
      Integer deliveryAttempt,
      String error,
      Instant failedAt) {

    Letter withData(String newData) {
      return with(parts -> parts.data = newData);
    }

    Letter withAttribute(String name, String value) {
      return with(
          parts -> {
            Map<String, String> more = new TreeMap<>(parts.attributes);
            more.put(name, value);
            parts.attributes = Map.copyOf(more);
          });
    }

    Letter failedAt(Instant time) {
      return with(parts -> parts.failedAt = time);
    }

    Letter publishedAt(Instant time) {
      return with(parts -> parts.publishTime = time);
    }

    Letter withOrderingKey(String key) {
      return with(parts -> parts.orderingKey = key);
    }

    Letter withError(String reason) {
      return with(parts -> parts.error = reason);
    }

    /** A copy of this letter with what {@code change} sets in its parts. */
    private Letter with(Consumer<Parts> change) {
      Parts parts = new Parts(this);
      change.accept(parts);
      return parts.letter();
    }

    /** A letter's components, to change one or two before making a new letter of them. */
    private static final class Parts {
      String data;
      final String messageId;
      Instant publishTime;
      Map<String, String> attributes;
      String orderingKey;
      final String subscription;
      final Integer deliveryAttempt;
      String error;
      Instant failedAt;

      Parts(Letter letter) {
        data = letter.data;
        messageId = letter.messageId;
        publishTime = letter.publishTime;
        attributes = letter.attributes;
        orderingKey = letter.orderingKey;
        subscription = letter.subscription;
        deliveryAttempt = letter.deliveryAttempt;
        error = letter.error;
        failedAt = letter.failedAt;
      }

      Letter letter() {
        return new Letter(
            data,
            messageId,
            publishTime,
            attributes,
            orderingKey,
            subscription,
            deliveryAttempt,
            error,
            failedAt);
      }
    }

    /** stack_trace as the service writes it. */
    String stackTrace() {
      StringBuilder trace = new StringBuilder("messageId=" + messageId);
      trace.append(" publishTime=").append(publishTime);
      trace.append(" subscription=").append(subscription);
      if (!orderingKey.isEmpty()) {
        trace.append(" orderingKey=").append(orderingKey);
      }
      if (deliveryAttempt != null) {
        trace.append(" deliveryAttempt=").append(deliveryAttempt);
      }
      return trace.toString();
    }
  }

  /** Event {@code id} as a JSON object. */
  static ObjectNode event(long id) {
    ObjectNode event = JSON.createObjectNode();
    event.put("id", id);
    event.put("name", "event " + id + " · café ✓ 'quoted' \\ back");
    event.put("amount", id + "." + (10 + id % 90));
    event.put("at", Instant.parse("2026-01-15T00:00:00Z").plusMillis(id * 1_001L).toString());
    return event;
  }

  /** A dead letter of one event, failed at {@code failedAt}. */
  static Letter letter(long id, String error, Instant failedAt) {
    return new Letter(
        event(id).toString(),
        Long.toString(9_000_000 + id),
        Instant.parse("2026-01-14T23:00:00.123Z").plusSeconds(id),
        Map.of("source", "sensor-" + id % 7, "trace", "t-" + id),
        id % 2 == 0 ? "" : "device-" + id % 3,
        "projects/p/subscriptions/logs-push",
        (int) (id % 5) + 1,
        error,
        failedAt);
  }

  /** Writes them as the service does, all optional columns filled. */
  static void insert(Sql sql, String table, List<Letter> letters) {
    StringBuilder body = new StringBuilder("INSERT INTO " + table + " FORMAT JSONEachRow\n");
    for (Letter letter : letters) {
      ObjectNode row = seedColumns(letter);
      row.put("message_id", letter.messageId());
      row.put("publish_time", EventValues.CLICKHOUSE_MILLIS.format(letter.publishTime()));
      ObjectNode attributes = row.putObject("attributes");
      letter.attributes().forEach(attributes::put);
      row.put("ordering_key", letter.orderingKey());
      row.put("subscription", letter.subscription());
      if (letter.deliveryAttempt() != null) {
        row.put("delivery_attempt", letter.deliveryAttempt());
      }
      body.append(row).append('\n');
    }
    sql.query(body.toString());
  }

  /** Writes them as the service does into the seed's four-column table. */
  static void insertSeed(Sql sql, String table, List<Letter> letters) {
    StringBuilder body = new StringBuilder("INSERT INTO " + table + " FORMAT JSONEachRow\n");
    for (Letter letter : letters) {
      body.append(seedColumns(letter)).append('\n');
    }
    sql.query(body.toString());
  }

  /** The four columns of the seed's dead-letter table, which every dead-letter table has. */
  private static ObjectNode seedColumns(Letter letter) {
    ObjectNode row = JSON.createObjectNode();
    row.put("raw_message", letter.data());
    row.put("error_message", letter.error());
    row.put("stack_trace", letter.stackTrace());
    row.put("failed_at", SECONDS.format(letter.failedAt()));
    return row;
  }

  /**
   * Writes a backfill's dead letters of these rows as its job does into the shared dead-letter
   * table: the source row in stack_trace, the optional columns left to their defaults. The first is
   * source row 1.
   */
  static void insertBackfill(Sql sql, String table, List<ObjectNode> rows, Instant failedAt) {
    StringBuilder body = new StringBuilder("INSERT INTO " + table + " FORMAT JSONEachRow\n");
    for (int position = 1; position <= rows.size(); position++) {
      ObjectNode row = JSON.createObjectNode();
      row.put("raw_message", rows.get(position - 1).toString());
      row.put("error_message", "source row " + position + ": column 'id' (UInt8) rejects 300");
      row.put("stack_trace", "sourceRow=" + position);
      row.put("failed_at", SECONDS.format(failedAt));
      body.append(row).append('\n');
    }
    sql.query(body.toString());
  }

  /** A row of the target table: what the tests compare, value by value. */
  record Row(
      String subscription,
      String messageId,
      long rowIndex,
      EventValues event,
      Map<String, String> attributes,
      String orderingKey,
      String publishTime,
      long deliveryAttempt) {}

  /**
   * The rows {@code letters} must be; {@code withAttributes} false for a table that did not keep
   * attributes and ordering keys.
   */
  static List<Row> expectedRows(List<Letter> letters, boolean withAttributes) {
    List<Row> rows = new ArrayList<>();
    for (Letter letter : letters) {
      List<JsonNode> events = JsonValues.events(JsonValues.read(letter.data()));
      for (int index = 0; index < events.size(); index++) {
        JsonNode event = events.get(index);
        rows.add(
            new Row(
                letter.subscription(),
                letter.messageId(),
                index,
                EventValues.published(event),
                withAttributes ? Map.copyOf(letter.attributes()) : Map.of(),
                withAttributes ? letter.orderingKey() : "",
                EventValues.CLICKHOUSE_MILLIS.format(letter.publishTime()),
                letter.deliveryAttempt() == null ? 0 : letter.deliveryAttempt()));
      }
    }
    return rows;
  }

  /** The target table as queries see it in the exactly-once layout (FINAL). */
  static List<Row> rowsFinal(Sql sql, String table) {
    List<Row> rows = new ArrayList<>();
    for (JsonNode row :
        sql.jsonRows(
            "SELECT _pubsub_subscription AS s, _pubsub_message_id AS m, _pubsub_row_index AS i,"
                + " id, name, toString(amount) AS amount, toString(at) AS at,"
                + " _pubsub_attributes AS attributes, _pubsub_ordering_key AS k,"
                + " toString(_pubsub_publish_time) AS p, _pubsub_delivery_attempt AS d FROM "
                + table
                + " FINAL")) {
      rows.add(
          new Row(
              row.get("s").asText(),
              row.get("m").asText(),
              row.get("i").asLong(),
              EventValues.stored(row),
              Map.copyOf(JsonValues.texts(row.get("attributes"))),
              row.get("k").asText(),
              row.get("p").asText(),
              row.get("d").asLong()));
    }
    return rows;
  }

  /** A dead-letter table's rows, every column, as text maps (sorted by failed_at, message_id). */
  static List<Map<String, String>> deadLetterRows(Sql sql, String table) {
    List<Map<String, String>> rows = new ArrayList<>();
    for (JsonNode row :
        sql.jsonRows("SELECT * FROM " + table + " ORDER BY failed_at, raw_message")) {
      Map<String, String> values = new LinkedHashMap<>();
      row.fields().forEachRemaining(e -> values.put(e.getKey(), text(e.getValue())));
      rows.add(values);
    }
    return rows;
  }

  private static String text(JsonNode value) {
    return value.isValueNode() ? value.asText() : value.toString();
  }

  static byte[] gzip(String text) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(bytes)) {
      out.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
