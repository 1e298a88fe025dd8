package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Date (UInt16 days since 1970) and Date32 (Int32 days, 1900 to 2299) from YYYY-MM-DD or a whole
 * number of days since 1970-01-01.
 */
final class DateEncoder implements ValueEncoder {
  private static final long DATE32_MIN_DAY = -25_567; // 1900-01-01
  private static final long DATE32_MAX_DAY = 120_529; // 2299-12-31
  private static final long DATE_MAX_DAY = 65_535; // 2149-06-06

  private final boolean date32;

  DateEncoder(boolean date32) {
    this.date32 = date32;
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    long day;
    if (value.isTextual()) {
      day = DateTimeText.epochDay(value.textValue());
    } else if (NumericValues.isLong(value)) {
      day = value.longValue();
    } else if (value.isIntegralNumber()) {
      day = Long.MIN_VALUE; // beyond a long, so beyond either range
    } else if (value.isNumber()) {
      throw new ValueRejectedException("not a whole number of days");
    } else {
      throw new ValueRejectedException(
          "expected a date string (YYYY-MM-DD) or a number of days, got "
              + NumericValues.kind(value));
    }
    if (date32) {
      if (day < DATE32_MIN_DAY || day > DATE32_MAX_DAY) {
        throw new ValueRejectedException("out of range for Date32 [1900-01-01, 2299-12-31]");
      }
      out.writeIntLE((int) day);
    } else {
      if (day < 0 || day > DATE_MAX_DAY) {
        throw new ValueRejectedException("out of range for Date [1970-01-01, 2149-06-06]");
      }
      out.writeShortLE((int) day);
    }
  }
}
