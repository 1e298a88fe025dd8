package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;

/** FixedString(N): the UTF-8 bytes padded with zeros; more than N bytes reject. */
final class FixedStringEncoder implements ValueEncoder {
  private final int length;

  FixedStringEncoder(int length) {
    this.length = length;
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    byte[] bytes;
    if (value.isTextual()) {
      String text = value.textValue();
      int utf8Length = RowBinaryOutput.utf8Length(text);
      if (utf8Length < 0) {
        throw StringEncoder.loneSurrogate(text, ~utf8Length);
      }
      bytes = text.getBytes(StandardCharsets.UTF_8);
    } else if (value.isBinary()) {
      bytes = StringEncoder.binary(value);
    } else {
      throw new ValueRejectedException("expected a string, got " + NumericValues.kind(value));
    }
    if (bytes.length > length) {
      throw new ValueRejectedException(
          bytes.length + " bytes do not fit FixedString(" + length + ")");
    }
    out.writeBytes(bytes);
    for (int i = bytes.length; i < length; i++) {
      out.writeByte(0);
    }
  }
}
