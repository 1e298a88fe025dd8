package dev.pubsubclickhouse.backfill.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.client.http.HttpHeaders;
import com.google.api.client.http.HttpResponseException;
import com.google.cloud.bigquery.BigQueryError;
import com.google.cloud.bigquery.BigQueryException;
import io.grpc.Status;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BigQueryRetryTest {
  private final BigQueryRetry retry =
      new BigQueryRetry(3, Duration.ofMillis(1), Duration.ofMillis(4));

  private static BigQueryException http(int status, String reason) {
    return new BigQueryException(status, "failed", new BigQueryError(reason, "", "failed"));
  }

  @Test
  void serverErrorsRateLimitsAndBrokenConnectionsAreTransient() {
    assertThat(BigQueryRetry.isTransient(http(503, "backendError"))).isTrue();
    assertThat(BigQueryRetry.isTransient(http(500, "internalError"))).isTrue();
    assertThat(BigQueryRetry.isTransient(http(429, "rateLimitExceeded"))).isTrue();
    assertThat(BigQueryRetry.isTransient(http(403, "rateLimitExceeded"))).isTrue();
    assertThat(BigQueryRetry.isTransient(new SocketException("Connection reset"))).isTrue();
    assertThat(BigQueryRetry.isTransient(Status.UNAVAILABLE.asRuntimeException())).isTrue();
    assertThat(BigQueryRetry.isTransient(Status.RESOURCE_EXHAUSTED.asRuntimeException())).isTrue();
  }

  @Test
  void refusalsAreNot() {
    assertThat(BigQueryRetry.isTransient(http(403, "accessDenied"))).isFalse();
    assertThat(BigQueryRetry.isTransient(http(400, "invalidQuery"))).isFalse();
    assertThat(BigQueryRetry.isTransient(http(404, "notFound"))).isFalse();
    assertThat(BigQueryRetry.isTransient(Status.PERMISSION_DENIED.asRuntimeException())).isFalse();
    assertThat(BigQueryRetry.isTransient(Status.INVALID_ARGUMENT.asRuntimeException())).isFalse();
  }

  @Test
  void aTransientFailureIsRetriedUntilTheCallSucceeds() throws Exception {
    AtomicInteger calls = new AtomicInteger();

    String result =
        retry.call(
            "tables.get",
            "p:d.t",
            () -> {
              if (calls.incrementAndGet() < 3) {
                throw http(503, "backendError");
              }
              return "table";
            });

    assertThat(result).isEqualTo("table");
    assertThat(calls).hasValue(3);
  }

  @Test
  void aFailureThatPersistsNamesTheStepTheRequestAndTheAttempts() {
    AtomicInteger calls = new AtomicInteger();

    assertThatThrownBy(
            () ->
                retry.call(
                    "jobs.get",
                    "job backfill_1",
                    () -> {
                      calls.incrementAndGet();
                      throw http(503, "backendError");
                    }))
        .isInstanceOf(SourceException.class)
        .hasMessage("BigQuery jobs.get (job backfill_1) failed after 3 attempts: HTTP 503 failed");
    assertThat(calls).hasValue(3);
  }

  @Test
  void aRefusalIsNotRetried() {
    AtomicInteger calls = new AtomicInteger();

    assertThatThrownBy(
            () ->
                retry.call(
                    "jobs.insert",
                    "job backfill_1",
                    () -> {
                      calls.incrementAndGet();
                      throw http(400, "invalidQuery");
                    }))
        .hasMessage("BigQuery jobs.insert (job backfill_1) failed: HTTP 400 failed");
    assertThat(calls).hasValue(1);
  }

  @Test
  void theServersRetryAfterSetsTheWait() {
    HttpHeaders headers = new HttpHeaders();
    headers.set("Retry-After", List.of("2"));
    HttpResponseException tooMany =
        new HttpResponseException.Builder(429, "Too Many Requests", headers).build();

    assertThat(retry.backoffMillis(1, tooMany)).isEqualTo(2_000);
    assertThat(retry.backoffMillis(3, http(503, "backendError"))).isBetween(2L, 4L);
  }
}
