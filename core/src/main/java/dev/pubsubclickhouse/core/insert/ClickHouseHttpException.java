package dev.pubsubclickhouse.core.insert;

/**
 * An error answer to an HTTP request: ClickHouse's own (with its error code), or one from something
 * in front of it (a load balancer's 503, a proxy's 502) without a code.
 */
public final class ClickHouseHttpException extends Exception {
  private final int code;
  private final int httpStatus;
  private final long writtenRows;

  /**
   * @param code ClickHouse's error code, or -1 when the answer carries none
   * @param writtenRows what the answer's summary says was written before the error, or -1
   */
  public ClickHouseHttpException(int code, int httpStatus, String message, long writtenRows) {
    super(message.isEmpty() ? "HTTP " + httpStatus + " without a message" : message);
    this.code = code;
    this.httpStatus = httpStatus;
    this.writtenRows = writtenRows;
  }

  public int code() {
    return code;
  }

  public int httpStatus() {
    return httpStatus;
  }

  public long writtenRows() {
    return writtenRows;
  }
}
