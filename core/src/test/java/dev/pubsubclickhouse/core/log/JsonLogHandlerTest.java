package dev.pubsubclickhouse.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class JsonLogHandlerTest {
  private record Line(String severity, String message, Map<String, ?> fields, Throwable failure) {}

  @Test
  void aLibrarysRecordBecomesOneLineWithItsSeverityLoggerMessageAndFailure() {
    List<Line> lines = new ArrayList<>();
    Logger logger = Logger.getLogger("io.grpc.test.JsonLogHandlerTest");
    logger.setUseParentHandlers(false);
    logger.addHandler(
        new JsonLogHandler(
            (severity, message, fields, failure) ->
                lines.add(new Line(severity, message, fields, failure))));
    IllegalStateException failure = new IllegalStateException("channel closed");
    logger.log(Level.WARNING, "retrying {0} after {1} ms", new Object[] {"publish", 100});
    logger.log(Level.SEVERE, "gave up", failure);
    logger.fine("below the level: dropped by the logger, never formatted");

    assertThat(lines)
        .containsExactly(
            new Line(
                "WARNING",
                "retrying publish after 100 ms",
                Map.of("logger", "io.grpc.test.JsonLogHandlerTest"),
                null),
            new Line(
                "ERROR", "gave up", Map.of("logger", "io.grpc.test.JsonLogHandlerTest"), failure));
  }

  @Test
  void julLevelsMapToCloudLoggingSeverities() {
    assertThat(JsonLogHandler.severity(Level.SEVERE)).isEqualTo("ERROR");
    assertThat(JsonLogHandler.severity(Level.WARNING)).isEqualTo("WARNING");
    assertThat(JsonLogHandler.severity(Level.INFO)).isEqualTo("INFO");
    assertThat(JsonLogHandler.severity(Level.CONFIG)).isEqualTo("DEBUG");
    assertThat(JsonLogHandler.severity(Level.FINEST)).isEqualTo("DEBUG");
  }
}
