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
 * A JSON number that is zero written with a minus sign: {@code -0}, {@code -0.0}, {@code -0e5}.
 * Neither int nor BigDecimal has a negative zero, but ClickHouse reads one into a float as -0.0 and
 * keeps its sign in a String. So this node is the integer or exact decimal zero it was read as,
 * except that its float and double are -0.0 and its text is the zero's with a minus sign.
 */
final class NegativeZeroNode extends NumericNode {
  private static final long serialVersionUID = 1L;

  /** {@code -0}. */
  static final NegativeZeroNode INTEGER = new NegativeZeroNode(BigDecimal.ZERO, true);

  /** The zero as read, with its scale: 0.0 for {@code -0.0}, 0E+5 for {@code -0e5}. */
  private final BigDecimal zero;

  private final boolean integral;

  private NegativeZeroNode(BigDecimal zero, boolean integral) {
    this.zero = zero;
    this.integral = integral;
  }

  /** The node of a decimal number read as {@code zero} (which has no sign). */
  static NegativeZeroNode decimal(BigDecimal zero) {
    return new NegativeZeroNode(zero, false);
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
    return integral ? Integer.valueOf(0) : zero;
  }

  @Override
  public int intValue() {
    return 0;
  }

  @Override
  public long longValue() {
    return 0;
  }

  @Override
  public float floatValue() {
    return -0.0f;
  }

  @Override
  public double doubleValue() {
    return -0.0;
  }

  @Override
  public BigDecimal decimalValue() {
    return zero;
  }

  @Override
  public BigInteger bigIntegerValue() {
    return BigInteger.ZERO;
  }

  @Override
  public boolean canConvertToInt() {
    return true;
  }

  @Override
  public boolean canConvertToLong() {
    return true;
  }

  @Override
  public String asText() {
    return "-" + zero;
  }

  @Override
  public void serialize(JsonGenerator generator, SerializerProvider provider) throws IOException {
    generator.writeNumber(asText());
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof NegativeZeroNode node
        && node.integral == integral
        && node.zero.equals(zero);
  }

  @Override
  public int hashCode() {
    return zero.hashCode();
  }
}
