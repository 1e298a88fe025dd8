package dev.pubsubclickhouse.driver;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Request latencies in buckets 5% wide (from 1 µs to about 20 minutes), so that percentiles of
 * millions of requests cost a fixed few kilobytes; a percentile is its bucket's upper bound.
 */
final class LatencyHistogram {
  private static final double GROWTH = 1.05;
  private static final int BUCKETS = 600;
  private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

  void record(long nanos) {
    double micros = Math.max(1, nanos / 1000.0);
    int bucket = (int) Math.ceil(Math.log(micros) / Math.log(GROWTH));
    counts.incrementAndGet(Math.min(BUCKETS - 1, bucket));
  }

  /** The latency under which {@code share} of the requests were answered, in milliseconds. */
  double percentileMillis(double share) {
    long total = 0;
    for (int i = 0; i < BUCKETS; i++) {
      total += counts.get(i);
    }
    if (total == 0) {
      return 0;
    }
    long wanted = (long) Math.ceil(share * total);
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts.get(i);
      if (seen >= wanted) {
        return Math.pow(GROWTH, i) / 1000.0;
      }
    }
    return Math.pow(GROWTH, BUCKETS - 1) / 1000.0;
  }
}
