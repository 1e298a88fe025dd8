package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.log.JsonLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HousekeepingTest {
  private final ByteArrayOutputStream log = new ByteArrayOutputStream();

  @AfterEach
  void restoreLog() {
    JsonLog.redirect(System.out);
  }

  @Test
  void aTaskThatThrowsAnErrorRunsAgainAtItsNextInterval() throws Exception {
    JsonLog.redirect(new PrintStream(log, true, StandardCharsets.UTF_8));
    assertRunsTwiceMoreAfterAnOutOfMemoryError();
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains("the sweep failed; it runs again at its next interval")
        .contains("OutOfMemoryError");
  }

  @Test
  void aTaskRunsAgainEvenWhenItsFailureCannotBeLogged() throws Exception {
    // After an OutOfMemoryError, logging it can throw one too.
    JsonLog.redirect(
        new PrintStream(
            new java.io.OutputStream() {
              @Override
              public void write(int b) {
                throw new OutOfMemoryError("Java heap space");
              }
            },
            true,
            StandardCharsets.UTF_8));
    assertRunsTwiceMoreAfterAnOutOfMemoryError();
  }

  /** A task every 10 ms that throws an OutOfMemoryError the first time runs twice more. */
  private static void assertRunsTwiceMoreAfterAnOutOfMemoryError() throws InterruptedException {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch ranAfterTheFailure = new CountDownLatch(2);
    try (Housekeeping housekeeping = new Housekeeping()) {
      housekeeping.every(
          Duration.ofMillis(10),
          "the sweep",
          () -> {
            if (runs.incrementAndGet() == 1) {
              throw new OutOfMemoryError("Java heap space");
            }
            ranAfterTheFailure.countDown();
          });
      assertThat(ranAfterTheFailure.await(5, TimeUnit.SECONDS)).isTrue();
    }
  }
}
