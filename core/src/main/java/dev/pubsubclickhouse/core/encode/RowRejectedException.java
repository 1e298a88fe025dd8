package dev.pubsubclickhouse.core.encode;

/** A row that cannot be written to the table; the message names the column, type and value. */
public final class RowRejectedException extends Exception {
  private final String column;

  public RowRejectedException(String column, String message) {
    super(message, null, false, false);
    this.column = column;
  }

  /** The column that rejected the row, or null when the row as a whole is wrong. */
  public String column() {
    return column;
  }
}
