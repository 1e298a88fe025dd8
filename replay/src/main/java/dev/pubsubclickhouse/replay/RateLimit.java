package dev.pubsubclickhouse.replay;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * At most so many messages per second, on average over the whole run: each call waits until the
 * messages before it have had their share of time. Time not used (a pause, a slow INSERT) is not
 * saved up for a burst later.
 */
public final class RateLimit {
  /** Waits; a seam for tests. */
  interface Sleeper {
    void sleep(long nanos) throws InterruptedException;
  }

  private final double perSecond;
  private final LongSupplier nanoTime;
  private final Sleeper sleeper;
  private long nextFree;
  private boolean started;

  RateLimit(double perSecond, LongSupplier nanoTime, Sleeper sleeper) {
    this.perSecond = perSecond;
    this.nanoTime = nanoTime;
    this.sleeper = sleeper;
  }

  /** {@code perSecond} messages a second; 0 for no limit. */
  public static RateLimit perSecond(double perSecond) {
    if (perSecond < 0) {
      throw new IllegalArgumentException("a rate must not be negative");
    }
    return new RateLimit(perSecond, System::nanoTime, TimeUnit.NANOSECONDS::sleep);
  }

  /** Waits, if need be, until {@code messages} more may go. */
  public void acquire(int messages) throws InterruptedException {
    if (perSecond == 0 || messages <= 0) {
      return;
    }
    long now = nanoTime.getAsLong();
    if (!started || nextFree - now < 0) {
      nextFree = now;
      started = true;
    }
    long wait = nextFree - now;
    nextFree += (long) (messages * 1_000_000_000L / perSecond);
    if (wait > 0) {
      sleeper.sleep(wait);
    }
  }

  @Override
  public String toString() {
    return perSecond == 0 ? "no limit" : perSecond + " messages/s";
  }
}
