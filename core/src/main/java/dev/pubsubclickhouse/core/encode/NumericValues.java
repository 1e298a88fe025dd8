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
    // BigDecimal also reads digits of other scripts ("١٢" is 12); a numeric string is ASCII.
    if (!isDecimalText(text)) {
      throw new ValueRejectedException("not a number");
    }
    return new BigDecimal(text);
  }

  /**
   * True for ASCII decimal number text, the grammar of a JSON number plus a leading '+', leading
   * zeros and a point without digits on one side: {@code [+-]digits[.digits][(e|E)[+-]digits]}.
   */
  static boolean isDecimalText(String text) {
    int length = text.length();
    int i = 0;
    if (i < length && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
      i++;
    }
    int digits = 0;
    while (i < length && isDigit(text.charAt(i))) {
      i++;
      digits++;
    }
    if (i < length && text.charAt(i) == '.') {
      i++;
      while (i < length && isDigit(text.charAt(i))) {
        i++;
        digits++;
      }
    }
    if (digits == 0) {
      return false;
    }
    if (i < length && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
      i++;
      if (i < length && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
        i++;
      }
      int exponentDigits = 0;
      while (i < length && isDigit(text.charAt(i))) {
        i++;
        exponentDigits++;
      }
      if (exponentDigits == 0) {
        return false;
      }
    }
    return i == length;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** An ASCII hex digit's value, else -1 (Character.digit also reads other scripts' digits). */
  static int hexDigit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  /**
   * True when every digit of {@code value} lies below 10^-places, so that cutting it to {@code
   * places} decimal places leaves zero. Checked before any setScale, which for 1e-999999999 would
   * otherwise compute 10^999999999.
   */
  static boolean isBelowPlaces(BigDecimal value, int places) {
    return integerDigits(value) <= -places;
  }

  /**
   * precision() - scale(): the digits before the point, or minus the zeros after it. Counted in a
   * long, since in an int it overflows for an exponent near Integer.MAX_VALUE (1e2147483647 would
   * have a negative count, as if it were below one).
   */
  static long integerDigits(BigDecimal value) {
    return (long) value.precision() - value.scale();
  }

  /** The exact integer value; a fraction other than zero rejects. */
  static BigInteger integer(JsonNode value) throws ValueRejectedException {
    if (value.isBigInteger()) {
      return value.bigIntegerValue();
    }
    // A double's shortest text is another integer beyond 2^53 (1.152921504606847E18 for 2^60):
    // read its exact value instead, as a cast to an integer does.
    BigDecimal exact =
        (value.isDouble() || value.isFloat()) && Double.isFinite(value.doubleValue())
            ? new BigDecimal(value.doubleValue())
            : decimal(value);
    if (exact.signum() == 0) {
      return BigInteger.ZERO;
    }
    BigDecimal stripped = exact.stripTrailingZeros();
    if (stripped.scale() > 0) {
      throw new ValueRejectedException("has a fractional part");
    }
    if (integerDigits(stripped) > 80) {
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
