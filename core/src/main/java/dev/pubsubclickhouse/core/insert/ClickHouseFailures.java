package dev.pubsubclickhouse.core.insert;

import com.clickhouse.client.api.ClientException;
import com.clickhouse.client.api.ConnectionInitiationException;
import com.clickhouse.client.api.ServerException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/** The one place that decides what a ClickHouse failure means. */
public final class ClickHouseFailures {
  /** The server codes the official Kafka sink retries. */
  private static final Set<Integer> TRANSIENT_CODES =
      Set.of(3, 107, 159, 164, 202, 203, 209, 210, 241, 242, 252, 285, 319, 425, 999);

  /** NO_SUCH_COLUMN_IN_TABLE, CANNOT_READ_ALL_DATA, TOO_LARGE_STRING_SIZE. */
  private static final Set<Integer> SCHEMA_CHANGED_CODES = Set.of(16, 33, 131);

  /** Parse, type, range and constraint errors: the rows themselves are refused. */
  private static final Set<Integer> BAD_DATA_CODES =
      Set.of(6, 26, 27, 38, 41, 53, 69, 70, 72, 117, 321, 349, 377, 469, 691);

  private ClickHouseFailures() {}

  public static FailureKind classify(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof ServerException server) {
      int code = server.getCode();
      if (TRANSIENT_CODES.contains(code)) {
        return FailureKind.TRANSIENT;
      }
      if (SCHEMA_CHANGED_CODES.contains(code)) {
        return FailureKind.SCHEMA_CHANGED;
      }
      if (BAD_DATA_CODES.contains(code)) {
        return FailureKind.BAD_DATA;
      }
      if (code == ServerException.CODE_UNKNOWN && server.getTransportProtocolCode() >= 500) {
        return FailureKind.TRANSIENT;
      }
      return FailureKind.FATAL;
    }
    if (cause instanceof ConnectionInitiationException
        || cause instanceof IOException
        || cause instanceof TimeoutException
        || hasCause(cause, IOException.class)
        || hasCause(cause, SocketTimeoutException.class)) {
      return FailureKind.TRANSIENT;
    }
    if (cause instanceof ClientException) {
      return FailureKind.TRANSIENT;
    }
    return FailureKind.FATAL;
  }

  /** The server's error code, or -1 when the failure did not come from the server. */
  public static int serverCode(Throwable failure) {
    return unwrap(failure) instanceof ServerException server ? server.getCode() : -1;
  }

  /**
   * One line that says what went wrong: the server's own message when ClickHouse answered with an
   * error (client-v2 often wraps it in a generic "Failed to get query response"), else the
   * innermost cause's.
   */
  public static String describe(Throwable failure) {
    Throwable chosen = failure;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ServerException) {
        chosen = t;
        break;
      }
      if (t.getMessage() != null) {
        chosen = t;
      }
    }
    String message =
        chosen.getMessage() == null ? chosen.getClass().getSimpleName() : chosen.getMessage();
    int newline = message.indexOf('\n');
    return (newline < 0 ? message : message.substring(0, newline)).strip();
  }

  static Throwable unwrap(Throwable failure) {
    Throwable current = failure;
    while ((current instanceof ExecutionException || current instanceof CompletionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }

  private static boolean hasCause(Throwable failure, Class<? extends Throwable> type) {
    for (Throwable t = failure.getCause(); t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
