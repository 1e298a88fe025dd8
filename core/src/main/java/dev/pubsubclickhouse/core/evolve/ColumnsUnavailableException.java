package dev.pubsubclickhouse.core.evolve;

/**
 * A new field's column could not be added or seen for a reason that may pass (ClickHouse did not
 * answer): the message that brought the field waits for a later delivery rather than lose the
 * field's value.
 */
public final class ColumnsUnavailableException extends Exception {
  public ColumnsUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
