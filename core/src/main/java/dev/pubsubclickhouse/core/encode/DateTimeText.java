package dev.pubsubclickhouse.core.encode;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneRules;
import java.util.List;

/**
 * Reads the date-time texts the types accept: {@code 2026-01-15}, ISO-8601 {@code
 * 2026-01-15T12:34:56[.fraction][Z|+hh:mm|+hhmm|+hh]} and ClickHouse's {@code 2025-12-30
 * 12:00:00[.fraction]}. A text without an offset is read in the column's time zone.
 */
final class DateTimeText {
  private static final long[] POWERS_OF_TEN = {
    1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L
  };

  /** A tick count beyond what an Int64 holds: below the minimum of every date-time type. */
  static final long BEYOND_INT64 = Long.MIN_VALUE;

  private DateTimeText() {}

  static long powerOfTen(int exponent) {
    return POWERS_OF_TEN[exponent];
  }

  /** Days since 1970-01-01 of a {@code YYYY-MM-DD} text. */
  static long epochDay(String text) throws ValueRejectedException {
    if (text.length() != 10) {
      throw new ValueRejectedException("not a date (YYYY-MM-DD)");
    }
    return date(text);
  }

  /**
   * The instant as a count of 10^-precision seconds since the epoch, or {@link #BEYOND_INT64} when
   * that count does not fit an Int64; digits beyond the precision are cut, as ClickHouse does.
   */
  static long ticks(String text, ZoneId zone, int precision) throws ValueRejectedException {
    int length = text.length();
    if (length < 10) {
      throw notDateTime();
    }
    long epochDay = date(text);
    int hour = 0;
    int minute = 0;
    int second = 0;
    long fraction = 0;
    int position = 10;
    if (position < length && (text.charAt(position) == 'T' || text.charAt(position) == ' ')) {
      if (length < position + 6 || text.charAt(position + 3) != ':') {
        throw notDateTime();
      }
      hour = digits(text, position + 1, 2);
      minute = digits(text, position + 4, 2);
      position += 6;
      if (position < length && text.charAt(position) == ':') {
        if (length < position + 3) {
          throw notDateTime();
        }
        second = digits(text, position + 1, 2);
        position += 3;
        if (position < length && (text.charAt(position) == '.' || text.charAt(position) == ',')) {
          int start = ++position;
          while (position < length && isDigit(text.charAt(position))) {
            if (position - start < precision) {
              fraction = fraction * 10 + (text.charAt(position) - '0');
            }
            position++;
          }
          int kept = Math.min(position - start, precision);
          if (position == start) {
            throw notDateTime();
          }
          fraction *= POWERS_OF_TEN[precision - kept];
        }
      }
      if (hour > 23 || minute > 59 || second > 59) {
        throw new ValueRejectedException("time of day out of range");
      }
    }
    long secondOfDay = hour * 3600L + minute * 60L + second;
    long epochSecond;
    if (position == length) {
      epochSecond = inZone(epochDay, secondOfDay, zone);
    } else {
      epochSecond = epochDay * 86_400 + secondOfDay - offsetSeconds(text, position);
    }
    long scale = POWERS_OF_TEN[precision];
    long limit = Long.MAX_VALUE / scale;
    if (epochSecond > limit || epochSecond < -limit) {
      return BEYOND_INT64;
    }
    long ticks = epochSecond * scale + fraction;
    // The fraction is never negative, so only a positive sum can wrap (to a negative one).
    return epochSecond >= 0 && ticks < 0 ? BEYOND_INT64 : ticks;
  }

  /**
   * The instant of a local time in {@code zone}, read as ClickHouse reads it: a time that occurs
   * twice (clocks set back) has the earlier offset, and a time that a clock change skips has the
   * offset after the change ("02:30" on a night that goes from 02:00 to 03:00 is 01:30 of the old
   * offset), where java.time would move it forward instead.
   */
  private static long inZone(long epochDay, long secondOfDay, ZoneId zone) {
    if (zone == ZoneOffset.UTC) {
      return epochDay * 86_400 + secondOfDay;
    }
    LocalDateTime local = LocalDate.ofEpochDay(epochDay).atStartOfDay().plusSeconds(secondOfDay);
    ZoneRules rules = zone.getRules();
    List<ZoneOffset> offsets = rules.getValidOffsets(local);
    ZoneOffset offset =
        offsets.isEmpty() ? rules.getTransition(local).getOffsetAfter() : offsets.get(0);
    return local.toEpochSecond(offset);
  }

  private static int offsetSeconds(String text, int position) throws ValueRejectedException {
    int length = text.length();
    char sign = text.charAt(position);
    if ((sign == 'Z' || sign == 'z') && position + 1 == length) {
      return 0;
    }
    if (sign != '+' && sign != '-') {
      throw notDateTime();
    }
    int rest = length - position - 1;
    int hours;
    int minutes;
    if (rest == 2) {
      hours = digits(text, position + 1, 2);
      minutes = 0;
    } else if (rest == 4) {
      hours = digits(text, position + 1, 2);
      minutes = digits(text, position + 3, 2);
    } else if (rest == 5 && text.charAt(position + 3) == ':') {
      hours = digits(text, position + 1, 2);
      minutes = digits(text, position + 4, 2);
    } else {
      throw notDateTime();
    }
    if (hours > 18 || minutes > 59) {
      throw new ValueRejectedException("time zone offset out of range");
    }
    int seconds = hours * 3600 + minutes * 60;
    return sign == '-' ? -seconds : seconds;
  }

  private static long date(String text) throws ValueRejectedException {
    if (text.charAt(4) != '-' || text.charAt(7) != '-') {
      throw notDateTime();
    }
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 2);
    int day = digits(text, 8, 2);
    try {
      return LocalDate.of(year, month, day).toEpochDay();
    } catch (DateTimeException e) {
      throw new ValueRejectedException("no such date");
    }
  }

  private static int digits(String text, int start, int count) throws ValueRejectedException {
    int value = 0;
    for (int i = start; i < start + count; i++) {
      char c = text.charAt(i);
      if (!isDigit(c)) {
        throw notDateTime();
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static ValueRejectedException notDateTime() {
    return new ValueRejectedException(
        "not a date-time (ISO-8601, YYYY-MM-DD hh:mm:ss, or epoch seconds)");
  }
}
