package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.ZoneId;

/**
 * DateTime (UInt32 seconds) and DateTime64(p) (Int64 ticks of 10^-p s) from date-time text or epoch
 * seconds (a number, possibly with a fraction, or a numeric string).
 */
final class DateTimeEncoder implements ValueEncoder {
  private static final long DATETIME_MAX_SECOND = 4_294_967_295L; // 2106-02-07 06:28:15
  private static final long DATETIME64_MIN_SECOND = -2_208_988_800L; // 1900-01-01 00:00:00
  private static final long DATETIME64_MAX_SECOND = 10_413_791_999L; // 2299-12-31 23:59:59

  private final ZoneId zone;
  private final int precision;
  private final boolean wide;

  private DateTimeEncoder(ZoneId zone, int precision, boolean wide) {
    this.zone = zone;
    this.precision = precision;
    this.wide = wide;
  }

  static DateTimeEncoder dateTime(ZoneId zone) {
    return new DateTimeEncoder(zone, 0, false);
  }

  static DateTimeEncoder dateTime64(int precision, ZoneId zone) {
    return new DateTimeEncoder(zone, precision, true);
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    long ticks;
    if (value.isTextual()) {
      String text = value.textValue();
      ticks = looksLikeDate(text) ? DateTimeText.ticks(text, zone, precision) : epochTicks(text);
    } else if (NumericValues.isLong(value)) {
      ticks = epochTicks(BigDecimal.valueOf(value.longValue()));
    } else if (value.isNumber()) {
      ticks = epochTicks(NumericValues.decimal(value));
    } else {
      throw new ValueRejectedException(
          "expected a date-time string or epoch seconds, got " + NumericValues.kind(value));
    }
    long scale = DateTimeText.powerOfTen(precision);
    long second = Math.floorDiv(ticks, scale);
    if (wide) {
      if (second < DATETIME64_MIN_SECOND || second > DATETIME64_MAX_SECOND) {
        throw new ValueRejectedException("out of range for DateTime64 [1900-01-01, 2299-12-31]");
      }
      out.writeLongLE(ticks);
    } else {
      if (second < 0 || second > DATETIME_MAX_SECOND) {
        throw new ValueRejectedException(
            "out of range for DateTime [1970-01-01 00:00:00, 2106-02-07 06:28:15]");
      }
      out.writeIntLE((int) second);
    }
  }

  private long epochTicks(String text) throws ValueRejectedException {
    try {
      return epochTicks(NumericValues.parseDecimal(text));
    } catch (ValueRejectedException e) {
      throw new ValueRejectedException(
          "not a date-time (ISO-8601, YYYY-MM-DD hh:mm:ss, or epoch seconds)");
    }
  }

  private long epochTicks(BigDecimal seconds) throws ValueRejectedException {
    if (seconds.precision() - seconds.scale() > 12) {
      throw new ValueRejectedException("epoch seconds out of range");
    }
    return seconds.movePointRight(precision).setScale(0, RoundingMode.FLOOR).longValueExact();
  }

  private static boolean looksLikeDate(String text) {
    return text.length() >= 10 && text.charAt(4) == '-';
  }
}
