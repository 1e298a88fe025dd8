package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReadinessTest {
  @Test
  void anErrorWhileOpeningIsAReasonNotASilentStart() throws Exception {
    Readiness<String> readiness =
        new Readiness<>(
            () -> {
              throw new NoSuchMethodError("WritePath.open: a class from another build");
            },
            e -> "cannot open: " + e.getMessage(),
            opened -> {});
    readiness.start();
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      Optional<String> reason = readiness.notReadyReason();
      while (reason.orElse("").startsWith("starting") && System.nanoTime() < deadline) {
        Thread.sleep(20);
        reason = readiness.notReadyReason();
      }
      assertThat(reason)
          .contains(
              "cannot open: java.lang.NoSuchMethodError: WritePath.open: a class from another"
                  + " build");
    } finally {
      readiness.stop();
    }
  }
}
