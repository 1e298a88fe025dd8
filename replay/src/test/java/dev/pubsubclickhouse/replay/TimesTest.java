package dev.pubsubclickhouse.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class TimesTest {
  @Test
  void isoInstantsOffsetsLocalTimesAndDatesAreRead() {
    assertThat(Times.parse("2026-01-15T12:00:00Z"))
        .isEqualTo(Instant.parse("2026-01-15T12:00:00Z"));
    assertThat(Times.parse("2026-01-15T13:00:00.250+01:00"))
        .isEqualTo(Instant.parse("2026-01-15T12:00:00.250Z"));
    assertThat(Times.parse("2026-01-15T12:00:00")).isEqualTo(Instant.parse("2026-01-15T12:00:00Z"));
    assertThat(Times.parse(" 2026-01-15 ")).isEqualTo(Instant.parse("2026-01-15T00:00:00Z"));
  }

  @Test
  void anythingElseNamesTheFormsThatWork() {
    assertThatThrownBy(() -> Times.parse("15/01/2026"))
        .hasMessage(
            "'15/01/2026' is not a time: use ISO-8601, e.g. 2026-01-15T12:00:00Z,"
                + " 2026-01-15T13:00:00+01:00 or 2026-01-15 (UTC)");
  }
}
