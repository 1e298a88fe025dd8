package dev.pubsubclickhouse.function.observability;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets a repeated warning be logged at most once per interval, by whichever thread asks first: for
 * failures that come in floods, where each line would say the same.
 */
public final class WarningInterval {
  private final long intervalNanos;

  /** Far enough in the past that the first warning is always logged. */
  private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - (1L << 62));

  public WarningInterval(Duration interval) {
    this.intervalNanos = interval.toNanos();
  }

  /** True for the one caller that may log the warning now. */
  public boolean mayLog() {
    long now = System.nanoTime();
    long last = lastLogged.get();
    return now - last >= intervalNanos && lastLogged.compareAndSet(last, now);
  }
}
