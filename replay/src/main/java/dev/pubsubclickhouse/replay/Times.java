package dev.pubsubclickhouse.replay;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/** The times the command line takes: ISO-8601, in UTC unless an offset says otherwise. */
public final class Times {
  private Times() {}

  /**
   * {@code 2026-01-15T12:00:00Z}, {@code 2026-01-15T13:00:00+01:00}, {@code 2026-01-15T12:00:00}
   * (UTC) or {@code 2026-01-15} (midnight UTC); fractions of a second are kept.
   *
   * @throws IllegalArgumentException naming the accepted forms
   */
  public static Instant parse(String text) {
    String trimmed = text.trim();
    try {
      return OffsetDateTime.parse(trimmed).toInstant();
    } catch (DateTimeParseException notWithOffset) {
      // try the forms without an offset
    }
    try {
      return LocalDateTime.parse(trimmed).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException notLocal) {
      // try a date alone
    }
    try {
      return LocalDate.parse(trimmed).atStartOfDay(ZoneOffset.UTC).toInstant();
    } catch (DateTimeParseException notADate) {
      throw new IllegalArgumentException(
          "'"
              + trimmed
              + "' is not a time: use ISO-8601, e.g. 2026-01-15T12:00:00Z,"
              + " 2026-01-15T13:00:00+01:00 or 2026-01-15 (UTC)");
    }
  }
}
