package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.messages.PubSubMessage;
import java.io.IOException;
import java.util.Set;

/**
 * Reads a Debezium change event in JSON, with Kafka Connect's {@code schema}/{@code payload}
 * wrapper (JsonConverter with schemas enabled) or without it.
 *
 * <p>A tombstone (empty data or a JSON {@code null}), a heartbeat, a transaction marker (BEGIN/END)
 * and a MySQL schema change carry no row: they are read as {@link ChangeEvent.Kind#SKIPPED}. An
 * event without {@code op} or {@code source}, of a connector other than Postgres' or MySQL's, or of
 * an op this service does not write ({@code m}, a logical decoding message) is refused with the
 * reason, and so dead-lettered. Thread-safe.
 */
public final class ChangeEventReader {
  /** The attribute that carries the record key when the message has no ordering key. */
  public static final String KEY_ATTRIBUTE = "key";

  static final Set<String> CONNECTORS = Set.of("postgresql", "mysql");

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ChangeVersion versions;

  public ChangeEventReader(ChangeVersion versions) {
    this.versions = versions;
  }

  /**
   * The event this message's (decompressed) data holds.
   *
   * @throws PayloadRejectedException why the message cannot be read as a change event
   */
  public ChangeEvent read(byte[] data, PubSubMessage message) throws PayloadRejectedException {
    if (data.length == 0) {
      return ChangeEvent.skipped("tombstone");
    }
    JsonNode root;
    try {
      root = JSON.readTree(data);
    } catch (IOException e) {
      throw new PayloadRejectedException("the data is not JSON: " + firstLine(e));
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return ChangeEvent.skipped("tombstone");
    }
    if (!root.isObject()) {
      throw new PayloadRejectedException(
          "a Debezium change event is a JSON object, got " + root.getNodeType());
    }
    JsonNode schema = null;
    JsonNode payload = root;
    if (root.has("payload") && root.has("schema") && root.size() == 2) {
      schema = root.get("schema");
      payload = root.get("payload");
      if (payload.isNull()) {
        return ChangeEvent.skipped("tombstone");
      }
      if (!payload.isObject()) {
        throw new PayloadRejectedException(
            "the payload of a Debezium change event is an object, got " + payload.getNodeType());
      }
    }
    String notAChange = notAChange(payload, schema);
    if (notAChange != null) {
      return ChangeEvent.skipped(notAChange);
    }
    JsonNode op = payload.get("op");
    JsonNode source = payload.get("source");
    if (op == null || !op.isTextual() || source == null || !source.isObject()) {
      throw new PayloadRejectedException(
          "not a Debezium change event: it has no "
              + (op == null || !op.isTextual() ? "op" : "source")
              + " (is PAYLOAD_FORMAT=debezium meant for this topic?)");
    }
    if (op.textValue().equals("m")) {
      throw new PayloadRejectedException(
          "op m (a logical decoding message, prefix '"
              + payload.path("message").path("prefix").asText("")
              + "') has no row to write: it is kept as a dead letter");
    }
    SourceTable table = sourceTable(source);
    long version = versions.of(table.connector(), source);
    String opCode = op.textValue();
    ChangeEvent.Kind kind =
        switch (opCode) {
          case "c", "u", "r" -> ChangeEvent.Kind.UPSERT;
          case "d" -> ChangeEvent.Kind.DELETE;
          case "t" -> ChangeEvent.Kind.TRUNCATE;
          default -> throw new PayloadRejectedException("unknown op '" + opCode + "' of " + table);
        };
    ObjectNode before = row(payload, "before", schema);
    ObjectNode after = row(payload, "after", schema);
    if (kind == ChangeEvent.Kind.UPSERT && after == null) {
      throw new PayloadRejectedException("op " + opCode + " of " + table + " has no after row");
    }
    return ChangeEvent.change(kind, opCode)
        .table(table)
        .before(before)
        .after(after)
        .key(key(message))
        .source(source)
        .version(version)
        .transactionId(transactionId(payload, source))
        .withSchema(schema != null)
        .build();
  }

  /** What a message that is no row change is, by its schema's name or its fields; else null. */
  private static String notAChange(JsonNode payload, JsonNode schema) {
    String name = schema == null ? "" : schema.path("name").asText("");
    if (name.endsWith(".Heartbeat")
        || (!payload.has("op") && payload.size() == 1 && payload.has("ts_ms"))) {
      return "heartbeat";
    }
    if (name.endsWith(".TransactionMetadataValue")
        || (!payload.has("op") && payload.has("status") && payload.has("id"))) {
      return "transaction";
    }
    if (name.endsWith(".SchemaChangeValue")
        || (!payload.has("op") && (payload.has("ddl") || payload.has("tableChanges")))) {
      return "schema_change";
    }
    return null;
  }

  private static SourceTable sourceTable(JsonNode source) throws PayloadRejectedException {
    String connector = source.path("connector").asText("");
    if (!CONNECTORS.contains(connector)) {
      throw new PayloadRejectedException(
          "connector '"
              + connector
              + "' is not supported (postgresql and mysql are): source."
              + source.path("db").asText("?")
              + "."
              + source.path("table").asText("?"));
    }
    String container = connector.equals("postgresql") ? "schema" : "db";
    JsonNode outer = source.get(container);
    JsonNode table = source.get("table");
    if (outer == null || !outer.isTextual() || table == null || !table.isTextual()) {
      throw new PayloadRejectedException(
          "source." + container + " and source.table must name the change's table");
    }
    return new SourceTable(connector, outer.textValue() + "." + table.textValue());
  }

  private static ObjectNode row(JsonNode payload, String field, JsonNode schema)
      throws PayloadRejectedException {
    JsonNode row = payload.get(field);
    if (row == null || row.isNull()) {
      return null;
    }
    if (!row.isObject()) {
      throw new PayloadRejectedException(field + " must be an object, got " + row.getNodeType());
    }
    if (schema == null) {
      return (ObjectNode) row;
    }
    try {
      return SemanticValues.row((ObjectNode) row, SemanticValues.fieldSchemas(schema).get(field));
    } catch (PayloadRejectedException e) {
      throw new PayloadRejectedException(field + "." + e.getMessage());
    }
  }

  /**
   * The record key, from the ordering key (Debezium Server's Pub/Sub sink sets it to the key when
   * ordering is on) or the {@code key} attribute; with or without its schema wrapper.
   */
  private static ObjectNode key(PubSubMessage message) throws PayloadRejectedException {
    if (message == null) {
      return null;
    }
    String text = message.orderingKey();
    if (text == null || text.isEmpty()) {
      text = message.attributes().get(KEY_ATTRIBUTE);
    }
    if (text == null || text.isEmpty()) {
      return null;
    }
    JsonNode key;
    try {
      key = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      // An ordering key chosen by the publisher for its own reasons is not a record key.
      return null;
    }
    if (key != null && key.isObject() && key.has("schema") && key.has("payload")) {
      JsonNode payload = key.get("payload");
      return payload.isObject()
          ? SemanticValues.row((ObjectNode) payload, key.get("schema"))
          : null;
    }
    return key != null && key.isObject() ? (ObjectNode) key : null;
  }

  private static String transactionId(JsonNode payload, JsonNode source) {
    JsonNode transaction = payload.path("transaction").path("id");
    if (transaction.isValueNode() && !transaction.isNull()) {
      return transaction.asText();
    }
    for (String field : new String[] {"txId", "gtid"}) {
      JsonNode value = source.get(field);
      if (value != null && !value.isNull()) {
        return value.asText();
      }
    }
    return null;
  }

  private static String firstLine(IOException e) {
    String message = String.valueOf(e.getMessage());
    int end = message.indexOf('\n');
    return end < 0 ? message : message.substring(0, end);
  }
}
