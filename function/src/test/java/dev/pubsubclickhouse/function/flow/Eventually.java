package dev.pubsubclickhouse.function.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for what the table watch's thread will do, failing after a generous 10 s. */
final class Eventually {
  private Eventually() {}

  static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
