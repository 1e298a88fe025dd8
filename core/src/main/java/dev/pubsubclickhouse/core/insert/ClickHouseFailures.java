package dev.pubsubclickhouse.core.insert;

import com.clickhouse.client.api.ClientException;
import com.clickhouse.client.api.ConnectionInitiationException;
import com.clickhouse.client.api.ServerException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/** The one place that decides what a ClickHouse failure means. */
public final class ClickHouseFailures {
  /**
   * The table is not what the rows were encoded for. The typed INSERT format reports a column type
   * that differs from its header as INCORRECT_DATA "while reading header"; see {@link
   * #isHeaderMismatch}.
   */
  private static final Map<Integer, String> SCHEMA_CHANGED_CODES =
      Map.of(
          16, "NO_SUCH_COLUMN_IN_TABLE: a column the INSERT names was dropped",
          33, "CANNOT_READ_ALL_DATA: untyped rows shorter than the table's columns expect",
          131, "TOO_LARGE_STRING_SIZE: untyped rows misread after a column changed");

  /** Outages client-v2's retryable list leaves out: retried like its own, never blamed on a row. */
  private static final Map<Integer, String> MORE_TRANSIENT_CODES =
      Map.of(
          173, "CANNOT_ALLOCATE_MEMORY",
          225, "NO_ZOOKEEPER",
          279, "ALL_CONNECTION_TRIES_FAILED: a Distributed table's shard does not answer",
          286,
              "UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE: the last quorum INSERT is not yet on enough replicas",
          289,
              "REPLICA_IS_NOT_IN_QUORUM: a read with select_sequential_consistency reached a replica"
                  + " that has not fetched a quorum INSERT yet",
          499, "S3_ERROR: the table's object storage failed",
          1000, "POCO_EXCEPTION: the server's network layer failed");

  /** Failures that no row causes and no split can cure; the rows wait for them to pass. */
  private static final Map<Integer, String> NOT_THE_ROWS_CODES =
      Map.ofEntries(
          Map.entry(60, "UNKNOWN_TABLE"),
          Map.entry(218, "TABLE_IS_DROPPED"),
          Map.entry(81, "UNKNOWN_DATABASE"),
          Map.entry(497, "ACCESS_DENIED: the user lacks the INSERT grant"),
          Map.entry(516, "AUTHENTICATION_FAILED"),
          Map.entry(192, "UNKNOWN_USER"),
          Map.entry(194, "REQUIRED_PASSWORD"),
          Map.entry(201, "QUOTA_EXCEEDED"),
          Map.entry(243, "NOT_ENOUGH_SPACE: the server's disk is full"),
          Map.entry(73, "UNKNOWN_FORMAT: the server does not know the INSERT's format"),
          Map.entry(115, "UNKNOWN_SETTING: a CLICKHOUSE_SETTINGS name the server does not know"),
          Map.entry(
              452,
              "SETTING_CONSTRAINT_VIOLATION: the user's settings profile forbids a setting sent"),
          Map.entry(62, "SYNTAX_ERROR: the INSERT's SQL, never the rows"),
          Map.entry(236, "ABORTED"),
          Map.entry(394, "QUERY_WAS_CANCELLED"),
          Map.entry(439, "CANNOT_SCHEDULE_TASK: the server has no free thread"),
          Map.entry(473, "DEADLOCK_AVOIDED"));

  private ClickHouseFailures() {}

  /**
   * Classifies a failure of an INSERT or a query: ClickHouse's error code first (client-v2's {@link
   * ServerException#isRetryable()} holds the list of transient codes: 3, 107, 159, 164, 202, 203,
   * 209, 210, 241, 242, 252, 285, 319, 425, 999), then what failed on the way.
   */
  public static FailureKind classify(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof ClickHouseHttpException http) {
      return classifyAnswer(http.code(), http.httpStatus(), http.getMessage());
    }
    if (cause instanceof ServerException server) {
      return classifyAnswer(
          server.getCode(), server.getTransportProtocolCode(), server.getMessage());
    }
    if (cause instanceof IOException
        || cause instanceof TimeoutException
        || cause instanceof ConnectionInitiationException
        || cause instanceof ClientException
        || hasCause(cause, IOException.class)) {
      return FailureKind.TRANSIENT;
    }
    return FailureKind.REFUSED;
  }

  /**
   * What a failure inside a materialized view means when the target table did not keep the rows
   * (its engine keeps nothing): as if no view were involved, by the code of the view's failure. A
   * view whose table has too many parts (252) is an outage that passes, a CHECK on it a refusal.
   */
  public static FailureKind classifyInsideAView(Throwable failure) {
    FailureKind kind = classify(failure);
    if (kind != FailureKind.VIEW_FAILED) {
      return kind;
    }
    Throwable cause = unwrap(failure);
    if (cause instanceof ClickHouseHttpException http) {
      return classifyCode(http.code(), http.httpStatus(), http.getMessage());
    }
    ServerException server = (ServerException) cause;
    return classifyCode(server.getCode(), server.getTransportProtocolCode(), server.getMessage());
  }

  private static FailureKind classifyAnswer(int code, int httpStatus, String message) {
    if (code < 0) {
      // No ClickHouse code: a proxy or load balancer answered. 5xx, 429 and 408 pass; 413 says the
      // INSERT is too large, which a split cures; anything else (a wrong path, a proxy's 403) is
      // the deployment's problem, not the rows'.
      if (httpStatus == 413) {
        return FailureKind.REFUSED;
      }
      return httpStatus >= 500 || httpStatus == 429 || httpStatus == 408
          ? FailureKind.TRANSIENT
          : FailureKind.NOT_THE_ROWS;
    }
    // First: whatever its code, a failure inside a view comes after the rows reached the table,
    // so retrying it would write them again (unless the table keeps nothing: the writer decides).
    if (message != null && message.contains("while pushing to view")) {
      return FailureKind.VIEW_FAILED;
    }
    return classifyCode(code, httpStatus, message);
  }

  private static FailureKind classifyCode(int code, int httpStatus, String message) {
    if (isTooManyPartitionsInOneInsert(code, message)) {
      return FailureKind.REFUSED;
    }
    if (new ServerException(code, message, httpStatus, null).isRetryable()
        || MORE_TRANSIENT_CODES.containsKey(code)) {
      return FailureKind.TRANSIENT;
    }
    if (SCHEMA_CHANGED_CODES.containsKey(code) || isHeaderMismatch(code, message)) {
      return FailureKind.SCHEMA_CHANGED;
    }
    if (NOT_THE_ROWS_CODES.containsKey(code)) {
      return FailureKind.NOT_THE_ROWS;
    }
    return FailureKind.REFUSED;
  }

  /**
   * TOO_MANY_PARTS (252) is an overload that passes, except "Too many partitions for single INSERT
   * block": the rows span more partitions than max_partitions_per_insert_block, which a split
   * cures.
   */
  private static boolean isTooManyPartitionsInOneInsert(int code, String message) {
    return code == 252 && message != null && message.contains("Too many partitions");
  }

  /** INCORRECT_DATA (117) raised while ClickHouse compared the typed header with the table. */
  private static boolean isHeaderMismatch(int code, String message) {
    return code == 117 && message != null && message.contains("while reading header");
  }

  /** The server's error code, or -1 when the failure did not come from the server. */
  public static int serverCode(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof ClickHouseHttpException http) {
      return http.code();
    }
    return cause instanceof ServerException server ? server.getCode() : -1;
  }

  /**
   * ClickHouse's error code wherever it is among the causes (client-v2 wraps it in a generic
   * "Failed to get query response"), or -1.
   */
  public static int serverCodeAmongCauses(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      int code = serverCode(t);
      if (code >= 0) {
        return code;
      }
    }
    return -1;
  }

  /**
   * One line that says what went wrong: the server's own message when ClickHouse answered with an
   * error (client-v2 often wraps it in a generic "Failed to get query response"), else the
   * innermost cause's.
   */
  public static String describe(Throwable failure) {
    Throwable chosen = failure;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ServerException || t instanceof ClickHouseHttpException) {
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
