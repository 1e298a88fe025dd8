package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;

/**
 * Debezium's semantic types, decoded by the {@code name} of a field's Kafka Connect schema into the
 * plain values the type rules read: a Decimal's base64 two's-complement bytes become its decimal
 * text, a count of days a date, a count of micro- or nanoseconds since the epoch an ISO-8601
 * instant, and so on. A value whose schema names no semantic type is kept as it is.
 *
 * <p>Postgres' {@code infinity} and {@code -infinity} timestamps arrive as the extreme 64-bit
 * integers (or the text {@code infinity}); no ClickHouse date holds them, so they are refused.
 */
public final class SemanticValues {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private SemanticValues() {}

  /** A row (a Connect struct) decoded field by field with the struct's schema. */
  public static ObjectNode row(ObjectNode row, JsonNode structSchema)
      throws PayloadRejectedException {
    ObjectNode decoded = NODES.objectNode();
    Map<String, JsonNode> fields = fieldSchemas(structSchema);
    Iterator<Map.Entry<String, JsonNode>> entries = row.fields();
    while (entries.hasNext()) {
      Map.Entry<String, JsonNode> entry = entries.next();
      JsonNode schema = fields.get(entry.getKey());
      try {
        decoded.set(
            entry.getKey(), schema == null ? entry.getValue() : value(entry.getValue(), schema));
      } catch (PayloadRejectedException e) {
        throw new PayloadRejectedException("field '" + entry.getKey() + "': " + e.getMessage());
      }
    }
    return decoded;
  }

  /** The schemas of a struct's fields by field name. */
  static Map<String, JsonNode> fieldSchemas(JsonNode structSchema) {
    Map<String, JsonNode> fields = new java.util.HashMap<>();
    JsonNode list = structSchema == null ? null : structSchema.get("fields");
    if (list != null && list.isArray()) {
      for (JsonNode field : list) {
        if (field.hasNonNull("field")) {
          fields.put(field.get("field").asText(), field);
        }
      }
    }
    return fields;
  }

  /** One value decoded with its schema. */
  public static JsonNode value(JsonNode value, JsonNode schema) throws PayloadRejectedException {
    if (value == null || value.isNull() || ToastPlaceholder.within(value)) {
      // A placeholder is replaced whole by its row's known value, never decoded.
      return value;
    }
    String name = schema.path("name").asText("");
    switch (name) {
      case "org.apache.kafka.connect.data.Decimal" -> {
        return decimal(value, schema.path("parameters").path("scale").asText(null));
      }
      case "io.debezium.data.VariableScaleDecimal" -> {
        return decimal(value.get("value"), value.path("scale").asText(null));
      }
      case "io.debezium.time.Date", "org.apache.kafka.connect.data.Date" -> {
        long days = integral(value, name);
        if (days == Integer.MAX_VALUE
            || days == Integer.MIN_VALUE
            || days == Long.MAX_VALUE
            || days == Long.MIN_VALUE) {
          throw infinity(value, name);
        }
        return TextNode.valueOf(LocalDate.ofEpochDay(days).toString());
      }
      case "io.debezium.time.Time", "org.apache.kafka.connect.data.Time" -> {
        return timeOfDay(integral(value, name) * 1_000_000L, value, name);
      }
      case "io.debezium.time.MicroTime" -> {
        return timeOfDay(Math.multiplyExact(integral(value, name), 1_000L), value, name);
      }
      case "io.debezium.time.NanoTime" -> {
        return timeOfDay(integral(value, name), value, name);
      }
      case "io.debezium.time.Timestamp", "org.apache.kafka.connect.data.Timestamp" -> {
        return instant(value, name, 1_000L, 1_000_000L);
      }
      case "io.debezium.time.MicroTimestamp" -> {
        return instant(value, name, 1_000_000L, 1_000L);
      }
      case "io.debezium.time.NanoTimestamp" -> {
        return instant(value, name, 1_000_000_000L, 1L);
      }
      case "io.debezium.time.ZonedTimestamp" -> {
        if (value.isTextual() && value.textValue().toLowerCase().contains("infinity")) {
          throw infinity(value, name);
        }
        return value;
      }
      case "io.debezium.data.Bits" -> {
        return bits(value, name);
      }
      default -> {}
    }
    // Json, Uuid, Enum, EnumSet, ZonedTime, Xml and plain types are text or numbers already.
    String type = schema.path("type").asText("");
    if (type.equals("array") && value.isArray()) {
      ArrayNode decoded = NODES.arrayNode(value.size());
      for (JsonNode item : value) {
        decoded.add(value(item, schema.path("items")));
      }
      return decoded;
    }
    if (type.equals("struct") && value.isObject()) {
      return row((ObjectNode) value, schema);
    }
    return value;
  }

  private static JsonNode decimal(JsonNode value, String scale) throws PayloadRejectedException {
    if (value == null || !value.isTextual()) {
      throw new PayloadRejectedException(
          "a Decimal must be base64 text, got "
              + (value == null ? "nothing" : value.getNodeType()));
    }
    if (scale == null) {
      throw new PayloadRejectedException("a Decimal without a scale");
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(value.textValue());
    } catch (IllegalArgumentException e) {
      throw new PayloadRejectedException("a Decimal that is not base64: " + e.getMessage());
    }
    if (bytes.length == 0) {
      throw new PayloadRejectedException("a Decimal of no bytes");
    }
    int exponent;
    try {
      exponent = Integer.parseInt(scale);
    } catch (NumberFormatException e) {
      throw new PayloadRejectedException("a Decimal whose scale is '" + scale + "'");
    }
    return TextNode.valueOf(new BigDecimal(new BigInteger(bytes), exponent).toPlainString());
  }

  private static long integral(JsonNode value, String name) throws PayloadRejectedException {
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new PayloadRejectedException(name + " must be an integer, got " + value);
    }
    return value.longValue();
  }

  private static JsonNode timeOfDay(long nanos, JsonNode value, String name)
      throws PayloadRejectedException {
    // Postgres' 24:00:00 is a time of day too; ClickHouse's types stop before it.
    if (nanos < 0 || nanos >= 86_400_000_000_000L) {
      throw new PayloadRejectedException(name + " " + value + " is not a time of day");
    }
    return TextNode.valueOf(DateTimeFormatter.ISO_LOCAL_TIME.format(LocalTime.ofNanoOfDay(nanos)));
  }

  private static JsonNode instant(JsonNode value, String name, long perSecond, long nanosPerUnit)
      throws PayloadRejectedException {
    long count = integral(value, name);
    if (count == Long.MAX_VALUE || count == Long.MIN_VALUE) {
      throw infinity(value, name);
    }
    long seconds = Math.floorDiv(count, perSecond);
    long nanos = Math.floorMod(count, perSecond) * nanosPerUnit;
    return TextNode.valueOf(Instant.ofEpochSecond(seconds, nanos).toString());
  }

  private static JsonNode bits(JsonNode value, String name) throws PayloadRejectedException {
    if (!value.isTextual()) {
      return value;
    }
    byte[] littleEndian;
    try {
      littleEndian = Base64.getDecoder().decode(value.textValue());
    } catch (IllegalArgumentException e) {
      throw new PayloadRejectedException(name + " that is not base64: " + e.getMessage());
    }
    byte[] bigEndian = new byte[littleEndian.length];
    for (int i = 0; i < littleEndian.length; i++) {
      bigEndian[i] = littleEndian[littleEndian.length - 1 - i];
    }
    return TextNode.valueOf(new BigInteger(1, bigEndian).toString());
  }

  private static PayloadRejectedException infinity(JsonNode value, String name) {
    return new PayloadRejectedException(
        name
            + " "
            + value
            + " is Postgres' infinity or -infinity, which no ClickHouse date or time holds");
  }
}
