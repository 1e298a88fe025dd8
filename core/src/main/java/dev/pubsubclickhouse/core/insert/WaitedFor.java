package dev.pubsubclickhouse.core.insert;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Whether somebody still waits to hear that rows were written, and until when at most: a push
 * request until its answer deadline, a backfill however long it takes. A write nobody would hear of
 * is not tried again, and no attempt outlasts that time, since a retry that landed after its source
 * gave up (and sent the rows again) would store them a second time.
 *
 * @param stillWaiting false once nobody waits any more
 * @param untilNanos the {@link System#nanoTime()} after which nobody waits, or {@link #NO_END}
 */
public record WaitedFor(BooleanSupplier stillWaiting, long untilNanos) {
  /** For {@code untilNanos}: somebody waits however long the write takes. */
  public static final long NO_END = Long.MAX_VALUE;

  /** Why rows nobody waits for any more are not sent. */
  public static final String NOT_SENT = "not sent: nobody waits for the rows any more";

  /** Somebody waits, however long the write takes. */
  public static final WaitedFor ALWAYS = new WaitedFor(() -> true, NO_END);

  /** True once nobody waits any more. */
  public boolean over() {
    return !stillWaiting.getAsBoolean()
        || (untilNanos != NO_END && System.nanoTime() - untilNanos >= 0);
  }

  /** {@code wait}, or the time left until nobody waits when that is shorter (never negative). */
  public Duration atMost(Duration wait) {
    if (untilNanos == NO_END) {
      return wait;
    }
    long left = Math.max(0, untilNanos - System.nanoTime());
    return left < wait.toNanos() ? Duration.ofNanos(left) : wait;
  }

  /**
   * {@code timeout}, or less when nobody waits that long.
   *
   * @throws SocketTimeoutException ({@link #NOT_SENT}) when nobody waits any more
   */
  public Duration cap(Duration timeout) throws SocketTimeoutException {
    Duration capped = atMost(timeout);
    if (capped.isZero() || !stillWaiting.getAsBoolean()) {
      throw new SocketTimeoutException(NOT_SENT);
    }
    return capped;
  }
}
