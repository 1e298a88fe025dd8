package com.google.cloud.pubsub.v1;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Pins what the pull mode's shutdown timeline (dev.pubsubclickhouse.function.pull.ShutdownTimeline)
 * takes from the client library: at shutdown it stops waiting for answers one second before its
 * timeout and nacks the rest. In the library's package because the value is package-private; a new
 * library version that changes it fails here, not as messages written twice.
 */
class LibraryFinalNacksTest {
  @Test
  void theLibraryNacksTheUnansweredOneSecondBeforeItsShutdownTimeout() {
    assertThat(MessageDispatcher.FINAL_NACK_TIMEOUT).isEqualTo(1_000L);
  }
}
