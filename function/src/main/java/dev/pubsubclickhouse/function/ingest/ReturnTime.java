package dev.pubsubclickhouse.function.ingest;

/**
 * How long the requests a batch answered take to come back, learnt batch by batch. It sets how long
 * an idle batcher waits for them. That time is the work per request, on this instance and its
 * client, times the batch: the answer, the next request, parsing and encoding. So it grows with
 * load. A fixed timer would be too short under load, and pure latency when traffic is quiet.
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

  /**
   * Every request expected back came back, {@code nanos} after an INSERT of {@code insertNanos}
   * ended. Later than twice the patience is a pause in the traffic, not a return time, and is not
   * learnt: requests that really take longer are learnt by {@link #gaveUp}, doubling each time.
   */
  void allBack(long nanos, long insertNanos) {
    if (nanos <= 2 * patience(insertNanos)) {
      estimateNanos = estimateNanos == 0 ? nanos : (estimateNanos + nanos) / 2;
    }
  }

  /**
   * A batch went without some of them after waiting {@code nanos} from the end of an INSERT of
   * {@code insertNanos}: they take longer than that. A batch held longer than twice the patience
   * was held by something else (a pause in the traffic, its table's pace) and teaches nothing.
   */
  void gaveUp(long nanos, long insertNanos) {
    if (nanos <= 2 * patience(insertNanos)) {
      estimateNanos = Math.min(maxNanos, Math.max(estimateNanos, nanos));
    }
  }

  /**
   * How long to wait for them after an INSERT of {@code insertNanos}: twice what they have been
   * taking, and at least twice the INSERT (before anything is learnt, and when it is quick).
   */
  long patience(long insertNanos) {
    return Math.min(maxNanos, 2 * Math.max(estimateNanos, insertNanos));
  }
}
