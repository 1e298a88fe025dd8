package dev.pubsubclickhouse.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.driver.PushDriver.Summary;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SummaryTest {
  private static final String LINE =
      "messages=120 sent=130 acked=118 retried=10 dead-lettered=2 seconds=2.5 msgs/s=47"
          + " answers=204:118,503:12 p50-ms=1.25 p99-ms=40.50";

  @Test
  void theLineARunPrintsReadsBackAsTheValuesItHolds() {
    Summary summary = Summary.find("started\n" + LINE + "\ndone\n").orElseThrow();

    assertThat(summary.messages()).isEqualTo(120);
    assertThat(summary.sent()).isEqualTo(130);
    assertThat(summary.acked()).isEqualTo(118);
    assertThat(summary.retried()).isEqualTo(10);
    assertThat(summary.deadLettered()).isEqualTo(2);
    assertThat(summary.seconds()).isEqualTo(2.5);
    assertThat(summary.answers()).isEqualTo(Map.of("204", 118L, "503", 12L));
    assertThat(summary.p50Millis()).isEqualTo(1.25);
    assertThat(summary.p99Millis()).isEqualTo(40.5);
    assertThat(summary).hasToString(LINE);
  }

  @Test
  void percentilesOfARunWithNoAnswerReadBackAsNotANumber() {
    String line =
        "messages=0 sent=0 acked=0 retried=0 dead-lettered=0 seconds=0.5 msgs/s=0 answers="
            + " p50-ms=NaN p99-ms=NaN";

    Summary summary = Summary.find(line).orElseThrow();

    assertThat(summary.answers()).isEmpty();
    assertThat(summary.p50Millis()).isNaN();
    assertThat(summary.p99Millis()).isNaN();
    assertThat(summary).hasToString(line);
  }

  @Test
  void anOutputWithoutASummaryLineHasNone() {
    assertThat(Summary.find("messages=3 sent=3\n")).isEmpty();
  }
}
