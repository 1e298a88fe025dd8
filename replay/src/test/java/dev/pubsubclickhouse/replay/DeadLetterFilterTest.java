package dev.pubsubclickhouse.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DeadLetterFilterTest {
  private static final Instant T = Instant.parse("2026-01-15T12:00:00Z");

  @Test
  void everyConditionGivenMustHold() {
    DeadLetterFilter filter =
        new DeadLetterFilter(
            Optional.of(T), Optional.of(T.plusSeconds(60)), Optional.of("rejects"), Set.of("7"));
    assertThat(filter.matches(T, "column 'a' rejects 1", "7")).isTrue();
    assertThat(filter.matches(T.plusSeconds(59), "rejects", "7")).isTrue();
    assertThat(filter.matches(T.minusMillis(1), "rejects", "7")).as("before").isFalse();
    assertThat(filter.matches(T.plusSeconds(60), "rejects", "7")).as("the end is out").isFalse();
    assertThat(filter.matches(T, "Rejects", "7")).as("case-sensitive").isFalse();
    assertThat(filter.matches(T, null, "7")).as("no reason known").isFalse();
    assertThat(filter.matches(T, "rejects", "8")).isFalse();
  }

  @Test
  void noConditionsTakeEverything() {
    assertThat(DeadLetterFilter.all().matches(T, null, "")).isTrue();
    assertThat(DeadLetterFilter.all().describe()).isEqualTo("any dead letter");
  }

  @Test
  void aTimeRangeThatIsEmptyIsRefused() {
    assertThatThrownBy(
            () -> new DeadLetterFilter(Optional.of(T), Optional.of(T), Optional.empty(), Set.of()))
        .hasMessageContaining("must be before --failedBefore");
  }

  @Test
  void itDescribesItself() {
    assertThat(
            new DeadLetterFilter(
                    Optional.of(T), Optional.empty(), Optional.of("x"), Set.of("b", "a"))
                .describe())
        .isEqualTo(
            "failed at or after 2026-01-15T12:00:00Z, error containing \"x\", message id in [a, b]");
  }
}
