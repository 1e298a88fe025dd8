package dev.pubsubclickhouse.core.encode;

/**
 * A value that does not fit its ClickHouse type. Carries only the reason; {@link RowEncoder} adds
 * the column, the type and an excerpt of the value. Thrown for every bad value, so it skips the
 * stack trace.
 */
final class ValueRejectedException extends Exception {
  ValueRejectedException(String reason) {
    super(reason, null, false, false);
  }
}
