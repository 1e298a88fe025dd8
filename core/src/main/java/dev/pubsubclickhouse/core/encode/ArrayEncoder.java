package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/** Array(T) from a JSON array: the element count, then each element. */
final class ArrayEncoder implements ValueEncoder {
  private final ValueEncoder element;

  ArrayEncoder(ValueEncoder element) {
    this.element = element;
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    if (!value.isArray()) {
      throw new ValueRejectedException("expected an array, got " + NumericValues.kind(value));
    }
    out.writeVarUInt(value.size());
    for (int i = 0; i < value.size(); i++) {
      JsonNode item = value.get(i);
      try {
        element.encode(item, out);
      } catch (ValueRejectedException e) {
        throw new ValueRejectedException(
            "element " + i + " (" + Excerpt.of(item) + "): " + e.getMessage());
      }
    }
  }
}
