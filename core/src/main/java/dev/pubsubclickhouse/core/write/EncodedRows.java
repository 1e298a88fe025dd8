package dev.pubsubclickhouse.core.write;

/**
 * A record's rows encoded for one schema ({@code bytes[offset, offset + length)},
 * RowBinaryWithDefaults), or why they cannot be.
 *
 * @param rowCount how many rows the bytes hold (a record may hold none, e.g. an empty JSON array)
 * @param rejection why the record cannot be written to the table, or null when it can
 */
public record EncodedRows(byte[] bytes, int offset, int length, int rowCount, String rejection) {
  private static final byte[] NONE = new byte[0];

  public static EncodedRows of(byte[] bytes, int offset, int length, int rowCount) {
    return new EncodedRows(bytes, offset, length, rowCount, null);
  }

  /** Rows that cannot be written; a reason is required, since a null one would read as "fits". */
  public static EncodedRows rejected(String reason) {
    return new EncodedRows(NONE, 0, 0, 0, java.util.Objects.requireNonNull(reason, "reason"));
  }

  public boolean isRejected() {
    return rejection != null;
  }
}
