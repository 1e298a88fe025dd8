package dev.pubsubclickhouse.core.insert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WaitedForTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @Test
  void nothingIsSentOnceNobodyWaitsEvenBeforeTheDeadline() {
    long inAMinute = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    assertThatThrownBy(() -> new WaitedFor(() -> false, inAMinute).cap(TIMEOUT))
        .isInstanceOf(SocketTimeoutException.class)
        .hasMessage(WaitedFor.NOT_SENT);
  }

  @Test
  void nothingIsSentOnceTheDeadlinePassed() {
    long aSecondAgo = System.nanoTime() - Duration.ofSeconds(1).toNanos();
    assertThatThrownBy(() -> new WaitedFor(() -> true, aSecondAgo).cap(TIMEOUT))
        .isInstanceOf(SocketTimeoutException.class)
        .hasMessage(WaitedFor.NOT_SENT);
  }

  @Test
  void anAttemptEndsByTheDeadline() throws Exception {
    long inTwoSeconds = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    assertThat(new WaitedFor(() -> true, inTwoSeconds).cap(TIMEOUT))
        .isPositive()
        .isLessThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(WaitedFor.ALWAYS.cap(TIMEOUT)).isEqualTo(TIMEOUT);
  }
}
