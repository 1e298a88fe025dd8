package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/**
 * Float32 and Float64 from a number or a numeric string: decimal text, rounded to the nearest value
 * of the type, or NaN and infinities by name ("NaN", "nan", "Infinity", "-inf", any case), as
 * ClickHouse reads them. A finite number that overflows the type rejects rather than becoming
 * infinity; a double that is infinite already is written as infinity.
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
    // A double that is infinite already (BigQuery's FLOAT64, Avro's double) stays infinite.
    boolean infinite = !exact && Double.isInfinite(value.doubleValue());
    // An exact node rounds its value to the nearest float or double; a negative zero's is -0.0.
    if (single) {
      float f = value.floatValue();
      if (Float.isInfinite(f) && !infinite) {
        throw new ValueRejectedException("out of range for Float32");
      }
      out.writeIntLE(Float.floatToRawIntBits(f));
    } else {
      double d = value.doubleValue();
      if (Double.isInfinite(d) && !infinite) {
        throw new ValueRejectedException("out of range for Float64");
      }
      out.writeLongLE(Double.doubleToRawLongBits(d));
    }
  }

  private void writeParsed(String text, RowBinaryOutput out) throws ValueRejectedException {
    if (text.length() > 1000) {
      throw new ValueRejectedException("numeric string longer than 1000");
    }
    if (NumericValues.isDecimalText(text)) {
      if (single) {
        float f = Float.parseFloat(text);
        if (Float.isInfinite(f)) {
          throw new ValueRejectedException("out of range for Float32");
        }
        out.writeIntLE(Float.floatToRawIntBits(f));
      } else {
        double d = Double.parseDouble(text);
        if (Double.isInfinite(d)) {
          throw new ValueRejectedException("out of range for Float64");
        }
        out.writeLongLE(Double.doubleToRawLongBits(d));
      }
      return;
    }
    double special = special(text);
    if (single) {
      out.writeIntLE(Float.floatToRawIntBits((float) special));
    } else {
      out.writeLongLE(Double.doubleToRawLongBits(special));
    }
  }

  /** NaN or an infinity by name, case-insensitive and signed, as ClickHouse reads them. */
  private static double special(String text) throws ValueRejectedException {
    boolean negative = text.startsWith("-");
    String name =
        negative || text.startsWith("+")
            ? text.substring(1).toLowerCase(Locale.ROOT)
            : text.toLowerCase(Locale.ROOT);
    return switch (name) {
      case "nan" -> Double.NaN;
      case "inf", "infinity" -> negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
      default -> throw new ValueRejectedException("not a number");
    };
  }
}
