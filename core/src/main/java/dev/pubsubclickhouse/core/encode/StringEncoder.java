package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * String: text as is, bytes as is, and any other JSON value as its compact JSON text. Also serves
 * JSON columns, which the INSERT reads as text (input_format_binary_read_json_as_string).
 */
final class StringEncoder implements ValueEncoder {
  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    if (value.isTextual()) {
      out.writeString(value.textValue());
    } else if (value.isNull()) {
      throw new ValueRejectedException("null, but the type is not Nullable");
    } else if (value.isBinary()) {
      out.writeLengthPrefixed(binary(value));
    } else {
      out.writeString(value.toString());
    }
  }

  static byte[] binary(JsonNode value) throws ValueRejectedException {
    try {
      return value.binaryValue();
    } catch (java.io.IOException e) {
      throw new ValueRejectedException("unreadable bytes");
    }
  }
}
