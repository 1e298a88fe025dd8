package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.BigInteger;

/** Reads JSON numbers and numeric strings exactly, never through a lossy double. */
final class NumericValues {
  private NumericValues() {}

  /** True when the node is an integer that fits a long, so {@link JsonNode#longValue} is exact. */
  static boolean isLong(JsonNode value) {
    return value.isInt() || value.isLong() || value.isShort();
  }

  /** The exact value of a number or a numeric string. */
  static BigDecimal decimal(JsonNode value) throws ValueRejectedException {
    if (value.isNumber()) {
      if (value.isDouble() || value.isFloat()) {
        double d = value.doubleValue();
        if (!Double.isFinite(d)) {
          throw new ValueRejectedException("not a finite number");
        }
        // Double.toString is the shortest text that reads back as the same double.
        return new BigDecimal(Double.toString(d));
      }
      return value.decimalValue();
    }
    if (value.isTextual()) {
      return parseDecimal(value.textValue());
    }
    throw new ValueRejectedException("expected a number or a numeric string, got " + kind(value));
  }

  static BigDecimal parseDecimal(String text) throws ValueRejectedException {
    if (text.isEmpty() || text.length() > 1000) {
      throw new ValueRejectedException(
          text.isEmpty() ? "empty string is not a number" : "numeric string longer than 1000");
    }
    try {
      return new BigDecimal(text);
    } catch (NumberFormatException e) {
      throw new ValueRejectedException("not a number");
    }
  }

  /** The exact integer value; a fraction other than zero rejects. */
  static BigInteger integer(JsonNode value) throws ValueRejectedException {
    if (value.isBigInteger()) {
      return value.bigIntegerValue();
    }
    BigDecimal exact = decimal(value);
    if (exact.signum() == 0) {
      return BigInteger.ZERO;
    }
    BigDecimal stripped = exact.stripTrailingZeros();
    if (stripped.scale() > 0) {
      throw new ValueRejectedException("has a fractional part");
    }
    if (stripped.precision() - stripped.scale() > 80) {
      throw new ValueRejectedException("is out of range");
    }
    return stripped.toBigIntegerExact();
  }

  static String kind(JsonNode value) {
    return switch (value.getNodeType()) {
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BINARY -> "bytes";
      default -> value.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    };
  }
}
