package dev.pubsubclickhouse.core.insert;

/** An INSERT that did not succeed, with what the caller should do about it. */
public final class InsertException extends Exception {
  private final FailureKind kind;
  private final int serverCode;
  private final int attempts;

  public InsertException(FailureKind kind, int serverCode, int attempts, Throwable cause) {
    super(describe(kind, serverCode, attempts, cause), cause);
    this.kind = kind;
    this.serverCode = serverCode;
    this.attempts = attempts;
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

  private static String describe(FailureKind kind, int code, int attempts, Throwable cause) {
    String reason =
        cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    int newline = reason.indexOf('\n');
    if (newline > 0) {
      reason = reason.substring(0, newline);
    }
    return "INSERT failed ("
        + kind.name().toLowerCase(java.util.Locale.ROOT)
        + (code >= 0 ? ", code " + code : "")
        + ", "
        + attempts
        + (attempts == 1 ? " attempt" : " attempts")
        + "): "
        + reason;
  }
}
