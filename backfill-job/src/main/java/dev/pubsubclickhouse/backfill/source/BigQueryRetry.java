package dev.pubsubclickhouse.backfill.source;

import com.google.api.client.http.HttpResponseException;
import com.google.api.gax.rpc.ApiException;
import com.google.cloud.bigquery.BigQueryError;
import com.google.cloud.bigquery.BigQueryException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The one retry policy of every call this job makes to BigQuery (job insert, job polling, table
 * metadata, page and stream reads). Transient failures are retried with jittered exponential
 * backoff, or after the server's {@code Retry-After}: HTTP 5xx, 429, 403 with reason {@code
 * rateLimitExceeded}, connection failures (reset, refused, timed out), and the gRPC codes
 * UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED, INTERNAL and DEADLINE_EXCEEDED. Anything else fails at
 * once. A failure that persists becomes a {@link SourceException} naming the step and the request.
 */
public final class BigQueryRetry {
  /** A call to retry. */
  public interface Call<T> {
    T run() throws Exception;
  }

  /** The server asked us to wait at most this long before trying again. */
  private static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(60);

  private final int maxAttempts;
  private final Duration firstBackoff;
  private final Duration maxBackoff;

  public BigQueryRetry(int maxAttempts, Duration firstBackoff, Duration maxBackoff) {
    this.maxAttempts = maxAttempts;
    this.firstBackoff = firstBackoff;
    this.maxBackoff = maxBackoff;
  }

  /**
   * Backoff from 200 ms doubling to 10 s: eight attempts span about 25 seconds, enough for a short
   * BigQuery or network hiccup.
   */
  public static BigQueryRetry withAttempts(int maxAttempts) {
    return new BigQueryRetry(maxAttempts, Duration.ofMillis(200), Duration.ofSeconds(10));
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * Runs {@code call}, retrying transient failures.
   *
   * @param step what the call is for, e.g. "tables.get"
   * @param request what it asks for, e.g. the table or job; never a secret
   * @throws SourceException naming step and request when the call fails for good
   */
  public <T> T call(String step, String request, Call<T> call) throws InterruptedException {
    long backoff = firstBackoff.toMillis();
    for (int attempt = 1; ; attempt++) {
      try {
        return call.run();
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        if (!isTransient(e)) {
          throw failure(step, request, attempt, e, false);
        }
        if (attempt >= maxAttempts) {
          throw failure(step, request, attempt, e, true);
        }
        long wait = retryAfterMillis(e).orElse(jitter(backoff));
        Thread.sleep(wait);
        backoff = Math.min(backoff * 2, maxBackoff.toMillis());
      }
    }
  }

  /** Backoff before attempt {@code attempt + 1} of a caller that keeps its own loop. */
  public long backoffMillis(int attempt, Throwable failure) {
    long backoff = firstBackoff.toMillis();
    for (int i = 1; i < attempt; i++) {
      backoff = Math.min(backoff * 2, maxBackoff.toMillis());
    }
    return retryAfterMillis(failure).orElse(jitter(backoff));
  }

  private static long jitter(long millis) {
    return ThreadLocalRandom.current().nextLong(millis / 2, millis + 1);
  }

  private static SourceException failure(
      String step, String request, int attempts, Exception e, boolean transientFailure) {
    String message =
        "BigQuery "
            + step
            + " ("
            + request
            + ") failed"
            + (transientFailure ? " after " + attempts + " attempts" : "")
            + ": "
            + describe(e);
    SourceException failure = new SourceException(message);
    failure.initCause(e);
    return failure;
  }

  /** True for a failure that a later attempt of the same request can overcome. */
  public static boolean isTransient(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BigQueryException bq) {
        if (transientStatus(bq.getCode(), reasons(bq))) {
          return true;
        }
        if (bq.getCode() > 0) {
          return false;
        }
      } else if (t instanceof HttpResponseException http) {
        return transientStatus(http.getStatusCode(), List.of(reasonIn(http.getContent())));
      } else if (t instanceof ApiException api) {
        return transientCode(api.getStatusCode().getCode().name());
      } else if (t instanceof StatusRuntimeException grpc) {
        return transientCode(grpc.getStatus().getCode().name());
      } else if (t instanceof IOException) {
        // Connection reset, refused, closed or timed out: nothing reached BigQuery, or its answer
        // did not reach us; every request this job sends is safe to send again.
        return true;
      }
    }
    return false;
  }

  private static boolean transientStatus(int status, List<String> reasons) {
    if (status >= 500 || status == 429) {
      return true;
    }
    return status == 403
        && reasons.stream()
            .anyMatch(r -> r != null && r.toLowerCase(Locale.ROOT).contains("ratelimitexceeded"));
  }

  private static boolean transientCode(String grpcCode) {
    return switch (Status.Code.valueOf(grpcCode)) {
      case UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED, INTERNAL, DEADLINE_EXCEEDED -> true;
      default -> false;
    };
  }

  private static List<String> reasons(BigQueryException e) {
    List<BigQueryError> errors = e.getErrors();
    if (errors != null && !errors.isEmpty()) {
      return errors.stream().map(BigQueryError::getReason).toList();
    }
    return e.getReason() == null ? List.of() : List.of(e.getReason());
  }

  private static String reasonIn(String content) {
    if (content == null) {
      return null;
    }
    int at = content.indexOf("\"reason\"");
    return at < 0 ? null : content.substring(at, Math.min(content.length(), at + 60));
  }

  /** The server's Retry-After in seconds, when the failure carries one. */
  private static java.util.OptionalLong retryAfterMillis(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof HttpResponseException http && http.getHeaders() != null) {
        Object value = http.getHeaders().get("retry-after");
        if (value instanceof List<?> list && !list.isEmpty()) {
          value = list.get(0);
        }
        if (value != null) {
          try {
            long seconds = Long.parseLong(value.toString().trim());
            return java.util.OptionalLong.of(
                Math.min(Math.max(0, seconds) * 1000, MAX_RETRY_AFTER.toMillis()));
          } catch (NumberFormatException notSeconds) {
            // An HTTP date: rare from Google APIs; fall back to our backoff.
          }
        }
      }
    }
    return java.util.OptionalLong.empty();
  }

  /** One line: the status and the first line of the message. */
  public static String describe(Throwable e) {
    Throwable shown = e;
    if (e instanceof SourceException && e.getCause() != null) {
      shown = e.getCause();
    }
    String message = shown.getMessage();
    if (shown instanceof BigQueryException bq && bq.getCode() > 0) {
      message = "HTTP " + bq.getCode() + " " + (message == null ? "" : message);
    } else if (shown instanceof HttpResponseException http) {
      message =
          "HTTP "
              + http.getStatusCode()
              + " "
              + firstLine(http.getContent(), http.getStatusMessage());
    } else if (message == null || message.isBlank()) {
      message = shown.getClass().getSimpleName();
    }
    return firstLine(message, shown.getClass().getSimpleName());
  }

  private static String firstLine(String text, String fallback) {
    String value = text == null || text.isBlank() ? fallback : text;
    if (value == null) {
      return "";
    }
    int newline = value.indexOf('\n');
    value = (newline < 0 ? value : value.substring(0, newline)).trim();
    return value.length() > 300 ? value.substring(0, 300) + "..." : value;
  }
}
