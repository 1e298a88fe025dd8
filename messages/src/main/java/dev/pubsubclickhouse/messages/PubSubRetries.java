package dev.pubsubclickhouse.messages;

import com.google.api.gax.retrying.RetrySettings;
import java.time.Duration;

/**
 * Retries of a Pub/Sub call that give up in bounded time: the Google clients' defaults retry for up
 * to 10 minutes, far longer than a push request or a replay run can wait.
 */
public final class PubSubRetries {
  private PubSubRetries() {}

  /**
   * Backoff from 100 ms, doubling up to {@code maxDelay}; each attempt may take {@code rpcTimeout};
   * all of them together {@code total}.
   */
  public static RetrySettings within(Duration total, Duration rpcTimeout, Duration maxDelay) {
    return RetrySettings.newBuilder()
        .setInitialRetryDelayDuration(Duration.ofMillis(100))
        .setRetryDelayMultiplier(2)
        .setMaxRetryDelayDuration(maxDelay)
        .setInitialRpcTimeoutDuration(rpcTimeout)
        .setRpcTimeoutMultiplier(1)
        .setMaxRpcTimeoutDuration(rpcTimeout)
        .setTotalTimeoutDuration(total)
        .build();
  }
}
