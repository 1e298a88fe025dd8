package dev.pubsubclickhouse.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.LogManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What the service's log lines look like to Cloud Logging and Error Reporting. */
class JsonLogTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final RequestTrace TRACE =
      new RequestTrace("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", true);

  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  @BeforeEach
  void capture() {
    JsonLog.redirect(new PrintStream(captured, true, StandardCharsets.UTF_8));
    JsonLog.traceProject("my-project");
  }

  @AfterEach
  void restore() throws IOException {
    JsonLog.redirect(System.out);
    JsonLog.traceProject(null);
    LogManager.getLogManager().readConfiguration();
  }

  private List<JsonNode> lines() throws IOException {
    List<JsonNode> lines = new java.util.ArrayList<>();
    for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
      lines.add(JSON.readTree(line));
    }
    return lines;
  }

  @Test
  void aLineWrittenWhileARequestIsServedNamesItsTraceAndNoOtherDoes() throws Exception {
    try (JsonLog.RequestScope scope = JsonLog.request(Optional.of(TRACE))) {
      JsonLog.warning("in the request", Map.of("n", 1));
    }
    JsonLog.warning("after it", Map.of());
    try (JsonLog.RequestScope scope = JsonLog.request(Optional.empty())) {
      JsonLog.warning("a request without a trace header", Map.of());
    }

    List<JsonNode> lines = lines();
    assertThat(lines.get(0).get("logging.googleapis.com/trace").asText())
        .isEqualTo("projects/my-project/traces/4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(lines.get(0).get("logging.googleapis.com/spanId").asText())
        .isEqualTo("00f067aa0ba902b7");
    assertThat(lines.get(0).get("logging.googleapis.com/trace_sampled").asBoolean()).isTrue();
    assertThat(lines.get(0).get("n").asInt()).isEqualTo(1);
    assertThat(lines.get(1).has("logging.googleapis.com/trace")).isFalse();
    assertThat(lines.get(2).has("logging.googleapis.com/trace")).isFalse();
  }

  @Test
  void withoutAProjectNoTraceIsNamed() throws Exception {
    JsonLog.traceProject(null);
    try (JsonLog.RequestScope scope = JsonLog.request(Optional.of(TRACE))) {
      JsonLog.info("in the request", Map.of());
    }
    assertThat(lines().get(0).has("logging.googleapis.com/trace")).isFalse();
  }

  @Test
  void anErrorCarriesItsStackTraceAndErrorReportingsType() throws Exception {
    JsonLog.error("request failed unexpectedly", Map.of(), new IllegalStateException("boom"));
    JsonNode line = lines().get(0);
    assertThat(line.get("severity").asText()).isEqualTo("ERROR");
    assertThat(line.get("@type").asText()).endsWith("ReportedErrorEvent");
    assertThat(line.get("stack_trace").asText())
        .startsWith("java.lang.IllegalStateException: boom\n\tat dev.pubsubclickhouse.");
  }

  @Test
  void slf4jRecordsOfLibrariesBecomeTheSameLinesWithTheirTraceAndStackTrace() throws Exception {
    JsonLog.captureLibraryLogs();
    try (JsonLog.RequestScope scope = JsonLog.request(Optional.of(TRACE))) {
      LoggerFactory.getLogger("org.apache.hc.client5.http.impl.classic.HttpRequestRetryExec")
          .warn("retrying {} after {} ms", "insert", 100, new java.io.IOException("reset"));
    }
    LoggerFactory.getLogger("org.eclipse.jetty.server.Server").debug("below INFO: dropped");
    // client-v2's warning per failed request: the service reports those failures itself.
    LoggerFactory.getLogger("com.clickhouse.client.api.Client").warn("Retrying.");
    java.util.logging.Logger.getLogger("io.grpc.internal.ManagedChannelImpl").info("from JUL");

    List<JsonNode> lines = lines();
    assertThat(lines).hasSize(2);
    JsonNode slf4j = lines.get(0);
    assertThat(slf4j.get("severity").asText()).isEqualTo("WARNING");
    assertThat(slf4j.get("message").asText()).isEqualTo("retrying insert after 100 ms");
    assertThat(slf4j.get("logger").asText())
        .isEqualTo("org.apache.hc.client5.http.impl.classic.HttpRequestRetryExec");
    assertThat(slf4j.get("stack_trace").asText()).startsWith("java.io.IOException: reset\n\tat ");
    assertThat(slf4j.get("logging.googleapis.com/trace").asText())
        .isEqualTo("projects/my-project/traces/4bf92f3577b34da6a3ce929d0e0e4736");
    JsonNode jul = lines.get(1);
    assertThat(jul.get("severity").asText()).isEqualTo("INFO");
    assertThat(jul.get("logger").asText()).isEqualTo("io.grpc.internal.ManagedChannelImpl");
    assertThat(jul.get("message").asText()).isEqualTo("from JUL");
  }

  /**
   * A secret may be any text, also one that occurs in the line's JSON itself: masked only in the
   * line's text values, the line stays the JSON Cloud Logging reads (before, {@code ","} was
   * replaced between fields too, and the line was no JSON).
   */
  @Test
  void aSecretThatOccursInTheJsonOfTheLineIsMaskedInItsTextsOnly() throws Exception {
    String secret = "\",\"";
    JsonLog.neverPrint(secret);
    JsonLog.warning("refused: a" + secret + "b", Map.of("detail", List.of("x" + secret), "n", 3));

    JsonNode line = lines().get(0);
    assertThat(line.get("severity").asText()).isEqualTo("WARNING");
    assertThat(line.get("message").asText()).isEqualTo("refused: a[redacted]b");
    assertThat(line.get("detail").get(0).asText()).isEqualTo("x[redacted]");
    assertThat(line.get("n").asInt()).isEqualTo(3);
  }

  @Test
  void aRegisteredSecretIsMaskedWhoeverPrintsIt() throws Exception {
    String secret = "s3cret\"pass";
    JsonLog.neverPrint(secret);
    JsonLog.captureLibraryLogs();
    JsonLog.warning("refused: " + secret, Map.of("detail", "password=" + secret));
    java.util.logging.Logger.getLogger("some.library").warning("connecting with " + secret);

    String text = captured.toString(StandardCharsets.UTF_8);
    assertThat(text).doesNotContain("s3cret");
    List<JsonNode> lines = lines();
    assertThat(lines.get(0).get("message").asText()).isEqualTo("refused: [redacted]");
    assertThat(lines.get(0).get("detail").asText()).isEqualTo("password=[redacted]");
    assertThat(lines.get(1).get("message").asText()).isEqualTo("connecting with [redacted]");
  }

  @Test
  void aSecretIsMaskedAsClickHouseQuotesItInItsMessages() {
    String secret = "json-log-test-it's-a\\se\tcr\0et";
    JsonLog.neverPrint(secret);
    // As ClickHouse 26.7 quotes such a value in a refused INSERT's message ("Column values: ...").
    String quoted = "json-log-test-it\\'s-a\\\\se\\tcr\\0et";

    assertThat(JsonLog.withoutSecrets("Column values: s = '" + quoted + "'."))
        .isEqualTo("Column values: s = '[redacted]'.");
  }
}
