package dev.pubsubclickhouse.function.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What the batcher tests share: a policy to start from, and waits that fail the test (or give up)
 * after a minute.
 */
final class BatcherFixtures {
  /** Seconds a test waits for what must happen before it fails. */
  static final long PATIENT = 60;

  private BatcherFixtures() {}

  /**
   * One INSERT at a time, a batch up to 1000 rows, waiting ten minutes at most, 100 messages
   * pending: tests change what they are about.
   */
  static BatchPolicy.Builder policy() {
    return BatchPolicy.builder()
        .maxRows(1000)
        .maxBytes(1 << 20)
        .maxWait(Duration.ofMinutes(10))
        .linger(Duration.ZERO)
        .maxConcurrentInserts(1)
        .maxInsertsPerSecond(10_000)
        .maxPendingBytes(1 << 30)
        .maxPendingMessages(100)
        .answerTimeout(Duration.ofSeconds(5));
  }

  /** Until exactly {@code count} messages are held (the batch before them has been answered). */
  static void awaitWaiting(GroupCommitBatcher batcher, int count) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENT);
    while (batcher.waiting() != count) {
      assertThat(System.nanoTime()).as("messages waiting").isLessThan(deadline);
      Thread.yield();
    }
  }

  static void await(CountDownLatch latch) {
    try {
      latch.await(PATIENT, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
