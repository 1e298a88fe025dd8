package dev.pubsubclickhouse.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogLineTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant TIME = Instant.parse("2026-01-15T12:34:56.789Z");

  @Test
  void aLineIsOneJsonObjectWithSeverityMessageTimeAndTheFields() throws Exception {
    String line = LogLine.json("INFO", "summary", TIME, Map.of("inserts", 3), null);
    assertThat(line).doesNotContain("\n");
    assertThat(JSON.readTree(line))
        .isEqualTo(
            JSON.readTree(
                "{\"severity\":\"INFO\",\"message\":\"summary\","
                    + "\"time\":\"2026-01-15T12:34:56.789Z\",\"inserts\":3}"));
  }

  @Test
  void aFailureCarriesItsStackTraceInTheFieldErrorReportingReads() throws Exception {
    IllegalStateException failure =
        new IllegalStateException("outer", new java.io.IOException("inner"));
    JsonNode line = JSON.readTree(LogLine.json("WARNING", "it failed", TIME, Map.of(), failure));
    assertThat(line.get("error").asText()).isEqualTo("java.lang.IllegalStateException: outer");
    String trace = line.get("stack_trace").asText();
    assertThat(trace)
        .startsWith("java.lang.IllegalStateException: outer\n\tat ")
        .contains("\tat dev.pubsubclickhouse.core.log.LogLineTest.")
        .contains("Caused by: java.io.IOException: inner");
    assertThat(line.has("@type")).as("only ERROR lines are error events").isFalse();
  }

  @Test
  void anErrorLineIsAnErrorReportingEventEvenWithoutAStackTrace() throws Exception {
    JsonNode line = JSON.readTree(LogLine.json("ERROR", "a view failed", TIME, Map.of(), null));
    assertThat(line.get("@type").asText())
        .isEqualTo(
            "type.googleapis.com/google.devtools.clouderrorreporting.v1beta1.ReportedErrorEvent");
    assertThat(line.has("stack_trace")).isFalse();
  }
}
