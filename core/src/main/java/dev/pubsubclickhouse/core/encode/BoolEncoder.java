package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/** Bool from true/false, "true"/"false", 0/1 as written (not -0) or "0"/"1". */
final class BoolEncoder implements ValueEncoder {
  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    out.writeByte(truth(value) ? 1 : 0);
  }

  private static boolean truth(JsonNode value) throws ValueRejectedException {
    if (value.isBoolean()) {
      return value.booleanValue();
    }
    // -0 is read as a NumberAsWrittenNode, and ClickHouse refuses it.
    if (NumericValues.isLong(value)
        && !(value instanceof NumberAsWrittenNode)
        && (value.longValue() == 0 || value.longValue() == 1)) {
      return value.longValue() == 1;
    }
    if (value.isTextual()) {
      switch (value.textValue()) {
        case "true", "1" -> {
          return true;
        }
        case "false", "0" -> {
          return false;
        }
        default -> {}
      }
    }
    throw new ValueRejectedException("expected true, false, 0 or 1");
  }
}
