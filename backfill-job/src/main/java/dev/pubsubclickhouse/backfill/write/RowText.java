package dev.pubsubclickhouse.backfill.write;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;

/**
 * A source row as text that reads back as the same values, so that a row refused once can be
 * encoded again for the table as it is later, without reading BigQuery again (a read session's
 * positions do not outlive it).
 *
 * <p>Plain JSON would not do: the readers hand the encoder typed values (an exact decimal, bytes, a
 * long, a double), and JSON text reads back as other types (a double for a NUMERIC, base64 text for
 * BYTES). So strings, booleans, nulls and objects stay JSON, and every other value is a two-element
 * array {@code [type, text]}: {@code ["i", "42"]} an integer, {@code ["f", "1.5"]} a double, {@code
 * ["n", "1.50"]} a decimal (its scale kept), {@code ["b", base64]} bytes and {@code ["a", [...]]}
 * an array. No JSON array is left untagged, so the text has one reading.
 */
public final class RowText {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

  private RowText() {}

  public static String write(ObjectNode row) {
    try {
      return JSON.writeValueAsString(tagged(row));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a row cannot be written as text: " + e.getMessage(), e);
    }
  }

  /**
   * @throws IllegalArgumentException when the text is not a row this class wrote
   */
  public static ObjectNode read(String text) {
    JsonNode tree;
    try {
      tree = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not a stored row: " + e.getOriginalMessage(), e);
    }
    if (!(tree instanceof ObjectNode)) {
      throw new IllegalArgumentException("not a stored row: " + tree.getNodeType());
    }
    return (ObjectNode) untagged(tree);
  }

  private static JsonNode tagged(JsonNode value) {
    if (value.isObject()) {
      ObjectNode object = NODES.objectNode();
      for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        object.set(field.getKey(), tagged(field.getValue()));
      }
      return object;
    }
    if (value.isArray()) {
      ArrayNode elements = NODES.arrayNode();
      value.forEach(element -> elements.add(tagged(element)));
      return NODES.arrayNode().add("a").add(elements);
    }
    if (value.isBinary()) {
      return tag("b", Base64.getEncoder().encodeToString(((BinaryNode) value).binaryValue()));
    }
    if (value.isIntegralNumber()) {
      return tag("i", value.bigIntegerValue().toString());
    }
    if (value.isBigDecimal()) {
      return tag("n", value.decimalValue().toString());
    }
    if (value.isNumber()) {
      return tag("f", Double.toString(value.doubleValue()));
    }
    // Text, booleans and nulls read back as they are.
    return value;
  }

  private static ArrayNode tag(String type, String text) {
    return NODES.arrayNode().add(type).add(text);
  }

  private static JsonNode untagged(JsonNode value) {
    if (value.isObject()) {
      ObjectNode object = NODES.objectNode();
      for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        object.set(field.getKey(), untagged(field.getValue()));
      }
      return object;
    }
    if (!value.isArray()) {
      return value;
    }
    if (value.size() != 2 || !value.get(0).isTextual()) {
      throw new IllegalArgumentException("not a stored value: " + value);
    }
    JsonNode payload = value.get(1);
    return switch (value.get(0).asText()) {
      case "a" -> {
        ArrayNode elements = NODES.arrayNode();
        payload.forEach(element -> elements.add(untagged(element)));
        yield elements;
      }
      case "b" -> BinaryNode.valueOf(Base64.getDecoder().decode(payload.asText()));
      case "i" -> integer(new BigInteger(payload.asText()));
      case "n" -> DecimalNode.valueOf(new BigDecimal(payload.asText()));
      case "f" -> DoubleNode.valueOf(Double.parseDouble(payload.asText()));
      default -> throw new IllegalArgumentException("not a stored value: " + value);
    };
  }

  private static JsonNode integer(BigInteger value) {
    return value.bitLength() < 64 ? LongNode.valueOf(value.longValue()) : NODES.numberNode(value);
  }
}
