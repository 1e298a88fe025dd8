package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A JSON column from a JSON object, sent as its compact text (the INSERT reads JSON as text,
 * input_format_binary_read_json_as_string). ClickHouse's JSON type holds objects only: any other
 * value would fail the whole INSERT, so it rejects here.
 */
final class JsonObjectEncoder implements ValueEncoder {
  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    if (!value.isObject()) {
      throw new ValueRejectedException(
          "a JSON column takes an object, got " + NumericValues.kind(value));
    }
    StringEncoder.writeText(value.toString(), out);
  }
}
