package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * A JSON column from a JSON object, or from a string that holds the JSON text of one (BigQuery
 * delivers its JSON values so), sent as compact text (the INSERT reads JSON as text,
 * input_format_binary_read_json_as_string). ClickHouse's JSON type holds objects only, reads
 * integers in [-2^63, 2^64-1] and floats in a double, and takes one value per path, a key with dots
 * being a path ({"a.b":1} is {"a":{"b":1}}): any other value would fail the whole INSERT, so it
 * rejects here.
 */
final class JsonObjectEncoder implements ValueEncoder {
  private static final BigInteger MIN_INTEGER = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger MAX_INTEGER =
      BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    JsonNode object = value.isTextual() ? parsed(value.textValue()) : value;
    if (object == null || !object.isObject()) {
      throw new ValueRejectedException(
          "a JSON column takes an object or the JSON text of one, got "
              + (value.isTextual() ? "a string that is not" : NumericValues.kind(value)));
    }
    checkObject(object, "", new HashSet<>());
    StringEncoder.writeText(object.toString(), out);
  }

  /** The JSON the text holds, read as a payload is (same limits); null when it holds none. */
  private static JsonNode parsed(String text) {
    try {
      return JsonPayloads.value(text);
    } catch (Exception e) {
      return null;
    }
  }

  /**
   * Checks every value of an object, adding the path of each to {@code paths}. A null or an object
   * is no value of its own: ClickHouse stores neither at its path.
   */
  private static void checkObject(JsonNode object, String prefix, Set<String> paths)
      throws ValueRejectedException {
    Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String path = prefix + field.getKey();
      JsonNode value = field.getValue();
      if (value.isObject()) {
        checkObject(value, path + ".", paths);
      } else if (!value.isNull()) {
        if (!paths.add(path)) {
          throw new ValueRejectedException(
              "two values at path " + path + " (a key with dots is a path)");
        }
        checkValue(value, path);
      }
    }
  }

  /** An object in an array is a JSON object of its own, with paths of its own. */
  private static void checkValue(JsonNode value, String path) throws ValueRejectedException {
    if (value.isArray()) {
      for (int i = 0; i < value.size(); i++) {
        JsonNode element = value.get(i);
        String at = path + "[" + i + "]";
        if (element.isObject()) {
          checkObject(element, at + ".", new HashSet<>());
        } else {
          checkValue(element, at);
        }
      }
    } else if (value.isBigInteger()
        && (value.bigIntegerValue().compareTo(MIN_INTEGER) < 0
            || value.bigIntegerValue().compareTo(MAX_INTEGER) > 0)) {
      throw new ValueRejectedException(
          "integer at " + path + " out of range [" + MIN_INTEGER + ", " + MAX_INTEGER + "]");
    } else if (value.isBigDecimal() // read exactly, so it may not fit the double ClickHouse reads
        && Double.isInfinite(value.doubleValue())) {
      throw new ValueRejectedException("number at " + path + " out of range for Float64");
    }
  }
}
