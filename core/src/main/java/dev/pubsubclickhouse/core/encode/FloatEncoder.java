package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Float32 and Float64 from a number or a numeric string ({@code Float.valueOf}/{@code
 * Double.valueOf} semantics, so "NaN" and "Infinity" are accepted as text). A finite number that
 * overflows the type rejects rather than becoming infinity.
 */
final class FloatEncoder implements ValueEncoder {
  private final boolean single;

  FloatEncoder(boolean single) {
    this.single = single;
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    if (value.isTextual()) {
      writeParsed(value.textValue(), out);
      return;
    }
    if (!value.isNumber()) {
      throw new ValueRejectedException(
          "expected a number or a numeric string, got " + NumericValues.kind(value));
    }
    boolean exact = value.isBigDecimal() || value.isBigInteger();
    if (single) {
      float f = exact ? value.decimalValue().floatValue() : value.floatValue();
      if (Float.isInfinite(f)) {
        throw new ValueRejectedException("out of range for Float32");
      }
      out.writeIntLE(Float.floatToRawIntBits(f));
    } else {
      double d = exact ? value.decimalValue().doubleValue() : value.doubleValue();
      if (Double.isInfinite(d)) {
        throw new ValueRejectedException("out of range for Float64");
      }
      out.writeLongLE(Double.doubleToRawLongBits(d));
    }
  }

  private void writeParsed(String text, RowBinaryOutput out) throws ValueRejectedException {
    if (text.length() > 1000) {
      throw new ValueRejectedException("numeric string longer than 1000");
    }
    try {
      if (single) {
        float f = Float.parseFloat(text);
        if (Float.isInfinite(f) && !text.contains("Infinity")) {
          throw new ValueRejectedException("out of range for Float32");
        }
        out.writeIntLE(Float.floatToRawIntBits(f));
      } else {
        double d = Double.parseDouble(text);
        if (Double.isInfinite(d) && !text.contains("Infinity")) {
          throw new ValueRejectedException("out of range for Float64");
        }
        out.writeLongLE(Double.doubleToRawLongBits(d));
      }
    } catch (NumberFormatException e) {
      throw new ValueRejectedException("not a number");
    }
  }
}
