package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/** Nullable(T): a 1 byte for NULL, else a 0 byte and the value. */
final class NullableEncoder implements ValueEncoder {
  private final ValueEncoder inner;

  NullableEncoder(ValueEncoder inner) {
    this.inner = inner;
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    if (value == null || value.isNull() || value.isMissingNode()) {
      out.writeByte(1);
    } else {
      out.writeByte(0);
      inner.encode(value, out);
    }
  }
}
