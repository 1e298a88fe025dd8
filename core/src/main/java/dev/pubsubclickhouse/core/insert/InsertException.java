package dev.pubsubclickhouse.core.insert;

import java.util.Locale;

/** An INSERT that did not succeed, with what the caller should do about it. */
public final class InsertException extends Exception {
  private final FailureKind kind;
  private final int serverCode;
  private final int attempts;
  private final long writtenRows;

  public InsertException(FailureKind kind, int attempts, Throwable cause) {
    super(describe(kind, ClickHouseFailures.serverCode(cause), attempts, cause), cause);
    this.kind = kind;
    this.serverCode = ClickHouseFailures.serverCode(cause);
    this.attempts = attempts;
    this.writtenRows =
        ClickHouseFailures.unwrap(cause) instanceof ClickHouseHttpException http
            ? http.writtenRows()
            : -1;
  }

  public FailureKind kind() {
    return kind;
  }

  /** ClickHouse's error code, or -1 when the server did not answer with one. */
  public int serverCode() {
    return serverCode;
  }

  public int attempts() {
    return attempts;
  }

  /**
   * The rows ClickHouse reported written before it failed (in every table the INSERT reached: the
   * target and its views), or -1 when the answer did not say.
   */
  public long writtenRows() {
    return writtenRows;
  }

  /** ClickHouse's message (or the failure's), without the kind and attempts. */
  public String reason() {
    return ClickHouseFailures.describe(getCause());
  }

  private static String describe(FailureKind kind, int code, int attempts, Throwable cause) {
    return "INSERT failed ("
        + kind.name().toLowerCase(Locale.ROOT)
        + (code >= 0 ? ", code " + code : "")
        + ", "
        + attempts
        + (attempts == 1 ? " attempt" : " attempts")
        + "): "
        + ClickHouseFailures.describe(cause);
  }
}
