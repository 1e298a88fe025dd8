package dev.pubsubclickhouse.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateLimitTest {
  /** A clock that only moves when the limit sleeps, or when told. */
  private long now = 1_000_000_000L;

  private final List<Long> sleeps = new ArrayList<>();

  private RateLimit limit(double perSecond) {
    return new RateLimit(
        perSecond,
        () -> now,
        nanos -> {
          sleeps.add(nanos);
          now += nanos;
        });
  }

  @Test
  void theFirstMessagesGoAtOnceAndEachLaterOneWaitsItsShare() throws Exception {
    RateLimit limit = limit(4);
    for (int i = 0; i < 5; i++) {
      limit.acquire(1);
    }
    assertThat(sleeps).containsExactly(250_000_000L, 250_000_000L, 250_000_000L, 250_000_000L);
  }

  @Test
  void aBatchTakesTheTimeOfItsMessages() throws Exception {
    RateLimit limit = limit(100);
    limit.acquire(200);
    limit.acquire(50);
    assertThat(sleeps).containsExactly(2_000_000_000L);
  }

  @Test
  void timeLeftUnusedIsNotSavedForABurst() throws Exception {
    RateLimit limit = limit(10);
    limit.acquire(1);
    now += 5_000_000_000L; // a long pause
    limit.acquire(1);
    limit.acquire(1);
    assertThat(sleeps).containsExactly(100_000_000L);
  }

  @Test
  void zeroMeansNoLimit() throws Exception {
    RateLimit limit = limit(0);
    limit.acquire(1_000_000);
    limit.acquire(1_000_000);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void aNegativeRateIsRefused() {
    assertThatThrownBy(() -> RateLimit.perSecond(-1)).hasMessage("a rate must not be negative");
  }
}
