package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/** String: text as is, bytes as is, and any other JSON value as its compact JSON text. */
final class StringEncoder implements ValueEncoder {
  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    if (value.isTextual()) {
      writeText(value.textValue(), out);
    } else if (value.isNull()) {
      throw new ValueRejectedException("null, but the type is not Nullable");
    } else if (value.isBinary()) {
      out.writeLengthPrefixed(binary(value));
    } else {
      writeText(value.toString(), out);
    }
  }

  /**
   * Writes text as a length-prefixed UTF-8 string; a lone surrogate, which has no UTF-8, rejects.
   */
  static void writeText(String text, RowBinaryOutput out) throws ValueRejectedException {
    int loneSurrogate = out.writeUtf8(text);
    if (loneSurrogate >= 0) {
      throw loneSurrogate(text, loneSurrogate);
    }
  }

  static ValueRejectedException loneSurrogate(String text, int index) {
    return new ValueRejectedException(
        String.format(
            java.util.Locale.ROOT,
            "a lone UTF-16 surrogate \\u%04x at character %d is not text",
            (int) text.charAt(index),
            index));
  }

  static byte[] binary(JsonNode value) throws ValueRejectedException {
    try {
      return value.binaryValue();
    } catch (java.io.IOException e) {
      throw new ValueRejectedException("unreadable bytes");
    }
  }
}
