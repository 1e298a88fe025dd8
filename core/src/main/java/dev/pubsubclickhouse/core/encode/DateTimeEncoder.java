package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * DateTime (UInt32 seconds) and DateTime64(p) (Int64 ticks of 10^-p s) from date-time text or epoch
 * seconds (a number, possibly with a fraction, or a numeric string). The range is checked on the
 * tick count itself, so that no value wraps: DateTime64 spans 1900-01-01 to 2299-12-31 (UTC), and
 * with p = 9 only as far as an Int64 of nanoseconds reaches, 2262-04-11 23:47:16.854775807.
 */
final class DateTimeEncoder implements ValueEncoder {
  private static final long DATETIME_MAX_SECOND = 4_294_967_295L; // 2106-02-07 06:28:15
  private static final long DATETIME64_MIN_SECOND = -2_208_988_800L; // 1900-01-01 00:00:00
  private static final long DATETIME64_MAX_SECOND = 10_413_791_999L; // 2299-12-31 23:59:59

  /** Epoch seconds with more integer digits than this are beyond every range (and cheap to see). */
  private static final int MAX_EPOCH_DIGITS = 12;

  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  private final ZoneId zone;
  private final int precision;
  private final boolean wide;
  private final long minTicks;
  private final long maxTicks;
  private final String outOfRange;

  private DateTimeEncoder(ZoneId zone, int precision, boolean wide) {
    this.zone = zone;
    this.precision = precision;
    this.wide = wide;
    long scale = DateTimeText.powerOfTen(precision);
    if (wide) {
      minTicks = DATETIME64_MIN_SECOND * scale;
      // At p = 9 the end of 2299 is beyond an Int64 of nanoseconds; the Int64 is the limit.
      maxTicks = precision == 9 ? Long.MAX_VALUE : (DATETIME64_MAX_SECOND + 1) * scale - 1;
      outOfRange =
          "out of range for DateTime64("
              + precision
              + ") ["
              + format(minTicks)
              + ", "
              + format(maxTicks)
              + "] (UTC)";
    } else {
      minTicks = 0;
      maxTicks = DATETIME_MAX_SECOND;
      outOfRange = "out of range for DateTime [1970-01-01 00:00:00, 2106-02-07 06:28:15] (UTC)";
    }
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
      ticks = epochTicks(value.longValue());
    } else if (value.isNumber()) {
      ticks = epochTicks(NumericValues.decimal(value));
    } else {
      throw new ValueRejectedException(
          "expected a date-time string or epoch seconds, got " + NumericValues.kind(value));
    }
    // DateTimeText.BEYOND_INT64 is below every minimum, so it rejects here too.
    if (ticks < minTicks || ticks > maxTicks) {
      throw new ValueRejectedException(outOfRange);
    }
    if (wide) {
      out.writeLongLE(ticks);
    } else {
      out.writeIntLE((int) ticks);
    }
  }

  private long epochTicks(long seconds) {
    long scale = DateTimeText.powerOfTen(precision);
    long limit = Long.MAX_VALUE / scale;
    return seconds > limit || seconds < -limit ? DateTimeText.BEYOND_INT64 : seconds * scale;
  }

  private long epochTicks(String text) throws ValueRejectedException {
    try {
      return epochTicks(NumericValues.parseDecimal(text));
    } catch (ValueRejectedException e) {
      throw new ValueRejectedException(
          "not a date-time (ISO-8601, YYYY-MM-DD hh:mm:ss, or epoch seconds)");
    }
  }

  /** Digits beyond the precision are cut toward the past, as the instant's ticks are. */
  private long epochTicks(BigDecimal seconds) {
    if (NumericValues.integerDigits(seconds) > MAX_EPOCH_DIGITS) {
      return DateTimeText.BEYOND_INT64;
    }
    if (NumericValues.isBelowPlaces(seconds, precision)) {
      return seconds.signum() < 0 ? -1 : 0;
    }
    BigDecimal ticks = seconds.movePointRight(precision).setScale(0, RoundingMode.FLOOR);
    return ticks.compareTo(LONG_MIN) >= 0 && ticks.compareTo(LONG_MAX) <= 0
        ? ticks.longValue()
        : DateTimeText.BEYOND_INT64;
  }

  private static boolean looksLikeDate(String text) {
    return text.length() >= 10 && text.charAt(4) == '-';
  }

  private String format(long ticks) {
    long scale = DateTimeText.powerOfTen(precision);
    Instant instant =
        Instant.ofEpochSecond(
            Math.floorDiv(ticks, scale), Math.floorMod(ticks, scale) * (1_000_000_000L / scale));
    String whole =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC).format(instant);
    if (precision == 0) {
      return whole;
    }
    String fraction = Long.toString(scale + Math.floorMod(ticks, scale)).substring(1);
    return whole + "." + fraction;
  }
}
