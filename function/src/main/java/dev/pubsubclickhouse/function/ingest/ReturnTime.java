package dev.pubsubclickhouse.function.ingest;

/**
 * How long the requests a batch answered take to come back, learnt batch by batch, and so how long
 * an idle batcher waits for them. It is this instance's and its clients' work per request (answer,
 * next request, parse, encode) times the batch, so it grows with load; a fixed timer would be too
 * short under load or pure latency when it is quiet.
 */
final class ReturnTime {
  private final long maxNanos;
  private long estimateNanos;

  /**
   * @param maxNanos the estimate never exceeds this ({@code maxWait}: a batch waits no longer)
   */
  ReturnTime(long maxNanos) {
    this.maxNanos = maxNanos;
  }

  /** Every request expected back came back, {@code nanos} after the INSERT ended. */
  void allBack(long nanos) {
    estimateNanos = estimateNanos == 0 ? nanos : (estimateNanos + nanos) / 2;
  }

  /** A batch went without some of them after waiting {@code nanos}: they take longer than that. */
  void gaveUp(long nanos) {
    estimateNanos = Math.min(maxNanos, Math.max(estimateNanos, nanos));
  }

  /**
   * How long to wait for them after an INSERT of {@code insertNanos}: twice what they have been
   * taking, and at least twice the INSERT (before anything is learnt, and when it is quick).
   */
  long patience(long insertNanos) {
    return Math.min(maxNanos, 2 * Math.max(estimateNanos, insertNanos));
  }
}
