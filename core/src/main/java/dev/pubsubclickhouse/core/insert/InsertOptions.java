package dev.pubsubclickhouse.core.insert;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The settings every INSERT carries, and how failures are retried.
 *
 * @param extraSettings any further ClickHouse settings, passed through as given
 * @param maxRetries retries after the first attempt, for transient failures only
 * @param timeout how long one attempt may take
 */
public record InsertOptions(
    long maxInsertBlockSize,
    boolean deduplicate,
    Optional<Integer> quorum,
    boolean distributedSync,
    boolean asyncInsert,
    Map<String, String> extraSettings,
    int maxRetries,
    Duration firstBackoff,
    Duration maxBackoff,
    Duration timeout) {

  public InsertOptions {
    extraSettings = Map.copyOf(extraSettings);
  }

  /** The defaults the README documents. */
  public static InsertOptions defaults() {
    return new InsertOptions(
        1_000_000,
        true,
        Optional.empty(),
        true,
        false,
        Map.of(),
        5,
        Duration.ofMillis(100),
        Duration.ofSeconds(2),
        Duration.ofSeconds(30));
  }

  public InsertOptions withMaxRetries(int retries) {
    return new InsertOptions(
        maxInsertBlockSize,
        deduplicate,
        quorum,
        distributedSync,
        asyncInsert,
        extraSettings,
        retries,
        firstBackoff,
        maxBackoff,
        timeout);
  }
}
