package dev.pubsubclickhouse.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.driver.PushDriver.Summary;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SummaryTest {
  @Test
  void theLineARunPrintsReadsBackAsTheSameSummary() {
    Summary summary =
        new Summary(120, 130, 118, 10, 2, 2.5, Map.of("204", 118L, "503", 12L), 1.25, 40.5);

    assertThat(Summary.find("started\n" + summary + "\ndone\n")).contains(summary);
  }

  @Test
  void percentilesOfARunWithNoAnswerReadBackAsNotANumber() {
    Summary summary = new Summary(0, 0, 0, 0, 0, 0.5, Map.of(), Double.NaN, Double.NaN);

    assertThat(Summary.find(summary.toString())).contains(summary);
  }

  @Test
  void anOutputWithoutASummaryLineHasNone() {
    assertThat(Summary.find("messages=3 sent=3\n")).isEmpty();
  }
}
