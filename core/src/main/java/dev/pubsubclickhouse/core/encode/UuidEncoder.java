package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/** UUID from its canonical 8-4-4-4-12 hex text; RowBinary holds the two halves little-endian. */
final class UuidEncoder implements ValueEncoder {
  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    if (!value.isTextual()) {
      throw new ValueRejectedException("expected a UUID string, got " + NumericValues.kind(value));
    }
    String text = value.textValue();
    if (text.length() != 36
        || text.charAt(8) != '-'
        || text.charAt(13) != '-'
        || text.charAt(18) != '-'
        || text.charAt(23) != '-') {
      throw new ValueRejectedException("not a UUID (8-4-4-4-12 hex digits)");
    }
    long high = 0;
    long low = 0;
    int digits = 0;
    for (int i = 0; i < 36; i++) {
      if (i == 8 || i == 13 || i == 18 || i == 23) {
        continue;
      }
      int digit = NumericValues.hexDigit(text.charAt(i));
      if (digit < 0) {
        throw new ValueRejectedException("not a UUID (8-4-4-4-12 hex digits)");
      }
      if (digits < 16) {
        high = (high << 4) | digit;
      } else {
        low = (low << 4) | digit;
      }
      digits++;
    }
    out.writeLongLE(high);
    out.writeLongLE(low);
  }
}
