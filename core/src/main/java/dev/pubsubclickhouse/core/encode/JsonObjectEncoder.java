package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A JSON column from a JSON object, or from a string that holds the JSON text of one (BigQuery
 * delivers its JSON values so), sent as compact text (the INSERT reads JSON as text,
 * input_format_binary_read_json_as_string). ClickHouse's JSON type holds objects only: any other
 * value would fail the whole INSERT, so it rejects here.
 */
final class JsonObjectEncoder implements ValueEncoder {
  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    JsonNode object = value.isTextual() ? parsed(value.textValue()) : value;
    if (object == null || !object.isObject()) {
      throw new ValueRejectedException(
          "a JSON column takes an object or the JSON text of one, got "
              + (value.isTextual() ? "a string that is not" : NumericValues.kind(value)));
    }
    StringEncoder.writeText(object.toString(), out);
  }

  /** The JSON the text holds, read as a payload is (same limits); null when it holds none. */
  private static JsonNode parsed(String text) {
    try {
      return JsonPayloads.mapper().readTree(text);
    } catch (Exception e) {
      return null;
    }
  }
}
