package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.node.NumericNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A JSON number that keeps its text as written, where its value alone would lose what the text
 * says. ClickHouse reads a number into a String column as written, and into a float keeping a
 * zero's minus sign; neither int nor BigDecimal has a negative zero, and BigDecimal writes {@code
 * 1e3} as 1E+3 and {@code 0.0000001} as 1E-7. So this node is the integer or exact decimal it was
 * read as, except that its text and JSON are as written, and a negative zero's float and double are
 * -0.0.
 */
final class NumberAsWrittenNode extends NumericNode {
  private static final long serialVersionUID = 1L;

  /** {@code -0}. */
  static final NumberAsWrittenNode NEGATIVE_INTEGER_ZERO =
      new NumberAsWrittenNode(BigDecimal.ZERO, "-0", true);

  /** The value as read, with its scale: 0.0 for {@code -0.0}, 1E+3 for {@code 1e3}. */
  private final BigDecimal value;

  private final String written;

  private final boolean integral;

  private NumberAsWrittenNode(BigDecimal value, String written, boolean integral) {
    this.value = value;
    this.written = written;
    this.integral = integral;
  }

  /**
   * The node of a decimal number written as the {@code length} characters of {@code text} at {@code
   * offset} and read as {@code value}, or null when BigDecimal writes {@code value} the same way
   * and it is no negative zero.
   */
  static NumberAsWrittenNode decimalOrNull(BigDecimal value, char[] text, int offset, int length) {
    boolean negativeZero = value.signum() == 0 && text[offset] == '-';
    return negativeZero || isWrittenOtherwise(value, text, offset, length)
        ? new NumberAsWrittenNode(value, new String(text, offset, length), false)
        : null;
  }

  /**
   * True when the text has an exponent, or when BigDecimal would give it one: more than six zeros
   * after the point before the first digit.
   */
  private static boolean isWrittenOtherwise(BigDecimal value, char[] text, int offset, int length) {
    for (int i = offset; i < offset + length; i++) {
      if (text[i] == 'e' || text[i] == 'E') {
        return true;
      }
    }
    return value.scale() > 6 && value.precision() - value.scale() < -5;
  }

  private boolean isNegativeZero() {
    return value.signum() == 0 && written.charAt(0) == '-';
  }

  @Override
  public JsonToken asToken() {
    return integral ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
  }

  @Override
  public JsonParser.NumberType numberType() {
    return integral ? JsonParser.NumberType.INT : JsonParser.NumberType.BIG_DECIMAL;
  }

  @Override
  public boolean isIntegralNumber() {
    return integral;
  }

  @Override
  public boolean isInt() {
    return integral;
  }

  @Override
  public boolean isFloatingPointNumber() {
    return !integral;
  }

  @Override
  public boolean isBigDecimal() {
    return !integral;
  }

  @Override
  public Number numberValue() {
    return integral ? Integer.valueOf(value.intValue()) : value;
  }

  @Override
  public int intValue() {
    return value.intValue();
  }

  @Override
  public long longValue() {
    return value.longValue();
  }

  @Override
  public float floatValue() {
    return isNegativeZero() ? -0.0f : value.floatValue();
  }

  @Override
  public double doubleValue() {
    return isNegativeZero() ? -0.0 : value.doubleValue();
  }

  @Override
  public BigDecimal decimalValue() {
    return value;
  }

  @Override
  public BigInteger bigIntegerValue() {
    return value.toBigInteger();
  }

  @Override
  public boolean canConvertToInt() {
    return value.compareTo(BigDecimal.valueOf(Integer.MIN_VALUE)) >= 0
        && value.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) <= 0;
  }

  @Override
  public boolean canConvertToLong() {
    return value.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) >= 0
        && value.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0;
  }

  @Override
  public String asText() {
    return written;
  }

  @Override
  public void serialize(JsonGenerator generator, SerializerProvider provider) throws IOException {
    generator.writeNumber(written);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof NumberAsWrittenNode node
        && node.integral == integral
        && node.written.equals(written);
  }

  @Override
  public int hashCode() {
    return written.hashCode();
  }
}
