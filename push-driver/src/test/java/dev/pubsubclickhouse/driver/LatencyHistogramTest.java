package dev.pubsubclickhouse.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {
  @Test
  void percentilesAreWithinFivePercentAbove() {
    LatencyHistogram histogram = new LatencyHistogram();
    for (int millis = 1; millis <= 100; millis++) {
      histogram.record(millis * 1_000_000L);
    }
    assertThat(histogram.percentileMillis(0.5)).isBetween(50.0, 50.0 * 1.05);
    assertThat(histogram.percentileMillis(0.99)).isBetween(99.0, 99.0 * 1.05);
    assertThat(histogram.percentileMillis(1.0)).isBetween(100.0, 100.0 * 1.05);
  }

  @Test
  void anEmptyHistogramSaysZeroAndTheSlowestBucketHoldsEverythingBeyond() {
    LatencyHistogram histogram = new LatencyHistogram();
    assertThat(histogram.percentileMillis(0.5)).isZero();
    histogram.record(Long.MAX_VALUE);
    assertThat(histogram.percentileMillis(0.5)).isGreaterThan(60_000.0);
    histogram.record(0);
    assertThat(histogram.percentileMillis(0.5)).isCloseTo(0.001, within(1e-9));
  }
}
