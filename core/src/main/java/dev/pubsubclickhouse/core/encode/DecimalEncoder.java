package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Decimal(P, S) from a number or a numeric string, exactly. Digits beyond the scale are cut toward
 * zero, as ClickHouse itself does when it parses decimal text; more than P - S integer digits
 * reject.
 */
final class DecimalEncoder implements ValueEncoder {
  private final int precision;
  private final int scale;
  private final int width;
  private final BigInteger limit;

  DecimalEncoder(int precision, int scale) {
    this.precision = precision;
    this.scale = scale;
    this.width = precision <= 9 ? 4 : precision <= 18 ? 8 : precision <= 38 ? 16 : 32;
    this.limit = BigInteger.TEN.pow(precision);
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    BigDecimal exact = NumericValues.decimal(value);
    // Zero has one integer digit to BigDecimal, and fits Decimal(P, P) all the same.
    if (exact.signum() != 0 && NumericValues.integerDigits(exact) > precision - scale) {
      throw overflow();
    }
    BigInteger unscaled =
        NumericValues.isBelowPlaces(exact, scale)
            ? BigInteger.ZERO
            : exact.setScale(scale, RoundingMode.DOWN).unscaledValue();
    if (unscaled.abs().compareTo(limit) >= 0) {
      throw overflow();
    }
    switch (width) {
      case 4 -> out.writeIntLE(unscaled.intValue());
      case 8 -> out.writeLongLE(unscaled.longValue());
      default -> out.writeBigIntegerLE(unscaled, width);
    }
  }

  private ValueRejectedException overflow() {
    return new ValueRejectedException(
        "does not fit Decimal("
            + precision
            + ", "
            + scale
            + "): more than "
            + (precision - scale)
            + " integer digits");
  }
}
