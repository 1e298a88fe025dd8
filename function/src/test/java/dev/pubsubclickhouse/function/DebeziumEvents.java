package dev.pubsubclickhouse.function;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Debezium change events as its Postgres and MySQL connectors write them (the envelope's {@code
 * before}, {@code after}, {@code source}, {@code op}, {@code ts_ms}, {@code transaction}), with or
 * without Kafka Connect's schema wrapper, and the push requests that carry them.
 */
final class DebeziumEvents {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private DebeziumEvents() {}

  /** A Postgres {@code source} block at this LSN. */
  static ObjectNode postgresSource(String schema, String table, long lsn, long txId, long tsMs) {
    ObjectNode source = NODES.objectNode();
    source.put("version", "2.5.0.Final");
    source.put("connector", "postgresql");
    source.put("name", "PostgreSQL_server");
    source.put("ts_ms", tsMs);
    source.put("snapshot", "false");
    source.put("db", "postgres");
    source.put("sequence", "[null,\"" + lsn + "\"]");
    source.put("schema", schema);
    source.put("table", table);
    source.put("txId", txId);
    source.put("lsn", lsn);
    source.putNull("xmin");
    return source;
  }

  /** A MySQL {@code source} block at this binlog position. */
  static ObjectNode mysqlSource(
      String db, String table, int fileIndex, long pos, int row, long tsMs, String gtid) {
    ObjectNode source = NODES.objectNode();
    source.put("version", "2.5.0.Final");
    source.put("connector", "mysql");
    source.put("name", "mysql-server-1");
    source.put("ts_ms", tsMs);
    source.put("snapshot", "false");
    source.put("db", db);
    source.put("table", table);
    source.put("server_id", 223344);
    source.put("gtid", gtid);
    source.put("file", String.format("mysql-bin.%06d", fileIndex));
    source.put("pos", pos);
    source.put("row", row);
    source.put("thread", 7);
    source.putNull("query");
    return source;
  }

  /** The envelope's payload. */
  static ObjectNode payload(String op, ObjectNode before, ObjectNode after, ObjectNode source) {
    ObjectNode payload = NODES.objectNode();
    payload.set("before", before == null ? NODES.nullNode() : before);
    payload.set("after", after == null ? NODES.nullNode() : after);
    payload.set("source", source);
    payload.put("op", op);
    payload.put("ts_ms", source.path("ts_ms").asLong() + 250);
    payload.putNull("transaction");
    return payload;
  }

  /** The payload in Kafka Connect's wrapper, with the row schema given for before and after. */
  static ObjectNode wrapped(ObjectNode payload, String rowSchemaFields, String name) {
    String row =
        "{\"type\":\"struct\",\"optional\":true,\"name\":\""
            + name
            + ".Value\",\"fields\":"
            + rowSchemaFields;
    String schema =
        "{\"type\":\"struct\",\"optional\":false,\"name\":\""
            + name
            + ".Envelope\",\"fields\":["
            + row
            + ",\"field\":\"before\"},"
            + row
            + ",\"field\":\"after\"},"
            + "{\"type\":\"struct\",\"optional\":false,\"name\":\"io.debezium.connector.postgresql.Source\","
            + "\"field\":\"source\",\"fields\":[]},"
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"op\"},"
            + "{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"}]}";
    ObjectNode wrapper = NODES.objectNode();
    try {
      wrapper.set("schema", JSON.readTree(schema));
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
    wrapper.set("payload", payload);
    return wrapper;
  }

  static ObjectNode row(Object... fieldsAndValues) {
    ObjectNode row = NODES.objectNode();
    for (int i = 0; i < fieldsAndValues.length; i += 2) {
      row.set((String) fieldsAndValues[i], JSON.valueToTree(fieldsAndValues[i + 1]));
    }
    return row;
  }

  /** A wrapped push request for one message, attributes escaped as JSON. */
  /** Pushes {@code event} as message {@code id}; the answer's status. */
  static int push(RunningService service, String id, ObjectNode event) throws Exception {
    return push(service, id, event.toString(), Map.of());
  }

  /** Pushes {@code data} as message {@code id} with {@code attributes}; the answer's status. */
  static int push(RunningService service, String id, String data, Map<String, String> attributes)
      throws Exception {
    return service
        .post(
            pushBody(id, data.getBytes(StandardCharsets.UTF_8), attributes),
            Map.of("Content-Type", "application/json"))
        .statusCode();
  }

  /**
   * The history table {@code hist} (every change once) and the latest-state table {@code latest}
   * that the materialized view {@code hist_mv} fills from it, as sql/cdc lays them out.
   */
  static void createHistoryAndLatestState(TestDatabase database) {
    database.execute(
        "CREATE TABLE hist (id Int32, name String, __version UInt64, __is_deleted UInt8)"
            + " ENGINE = ReplacingMergeTree ORDER BY (id, __version)");
    database.execute(
        "CREATE TABLE latest AS hist ENGINE = ReplacingMergeTree(__version, __is_deleted)"
            + " ORDER BY id");
    database.execute("CREATE MATERIALIZED VIEW hist_mv TO latest AS SELECT * FROM hist");
  }

  static byte[] pushBody(String messageId, byte[] data, Map<String, String> attributes) {
    ObjectNode message = NODES.objectNode();
    message.put("data", data);
    ObjectNode attributesNode = message.putObject("attributes");
    attributes.forEach(attributesNode::put);
    message.put("messageId", messageId);
    message.put("publishTime", "2026-01-15T12:34:56.789Z");
    ObjectNode body = NODES.objectNode();
    body.set("message", message);
    body.put("subscription", "projects/test/subscriptions/cdc");
    body.put("deliveryAttempt", 1);
    return body.toString().getBytes(StandardCharsets.UTF_8);
  }
}
