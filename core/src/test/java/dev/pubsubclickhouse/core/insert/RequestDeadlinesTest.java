package dev.pubsubclickhouse.core.insert;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hc.core5.concurrent.Cancellable;
import org.junit.jupiter.api.Test;

class RequestDeadlinesTest {
  /** Counts its cancels; the first {@code failures} of them throw, as a request ending may. */
  private static final class Request implements Cancellable {
    final AtomicInteger cancels = new AtomicInteger();
    final int failures;

    Request(int failures) {
      this.failures = failures;
    }

    @Override
    public boolean cancel() {
      if (cancels.incrementAndGet() <= failures) {
        throw new IllegalStateException("endpoint already released");
      }
      return true;
    }
  }

  private final RequestDeadlines deadlines = new RequestDeadlines(Duration.ofHours(1));

  @Test
  void onlyRequestsPastTheirDeadlineAreCancelledAndEachOnce() {
    Request late = new Request(0);
    Request onTime = new Request(0);
    RequestDeadlines.Watch lateWatch = deadlines.watch(late, Duration.ofMillis(10));
    RequestDeadlines.Watch onTimeWatch = deadlines.watch(onTime, Duration.ofMinutes(10));
    long now = System.nanoTime() + Duration.ofSeconds(1).toNanos();
    deadlines.cancelExpired(now);
    deadlines.cancelExpired(now);
    assertThat(late.cancels).hasValue(1);
    assertThat(lateWatch.expired()).isTrue();
    assertThat(onTime.cancels).hasValue(0);
    assertThat(onTimeWatch.expired()).isFalse();
    assertThat(deadlines.open()).isEqualTo(1);
  }

  @Test
  void aClosedRequestIsForgottenAndNeverCancelled() {
    Request answered = new Request(0);
    deadlines.watch(answered, Duration.ofMillis(1)).close();
    deadlines.cancelExpired(System.nanoTime() + Duration.ofSeconds(1).toNanos());
    assertThat(answered.cancels).hasValue(0);
    assertThat(deadlines.open()).isZero();
  }

  @Test
  void aCancelThatThrowsDoesNotKeepTheOthersFromBeingCancelled() {
    Request failing = new Request(1);
    Request other = new Request(0);
    deadlines.watch(failing, Duration.ofMillis(1));
    deadlines.watch(other, Duration.ofMillis(1));
    deadlines.cancelExpired(System.nanoTime() + Duration.ofSeconds(1).toNanos());
    assertThat(failing.cancels).hasValue(1);
    assertThat(other.cancels).hasValue(1);
    assertThat(deadlines.open()).isZero();
  }

  @Test
  void theWatchingThreadCancelsOnItsOwn() throws Exception {
    RequestDeadlines ticking = new RequestDeadlines(Duration.ofMillis(10));
    Request late = new Request(0);
    RequestDeadlines.Watch watch = ticking.watch(late, Duration.ofMillis(20));
    long giveUp = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    // expired is set just before the cancel: wait for the cancel itself
    while (late.cancels.get() == 0 && System.nanoTime() < giveUp) {
      Thread.sleep(5);
    }
    assertThat(watch.expired()).isTrue();
    assertThat(late.cancels).hasValue(1);
  }
}
