package dev.pubsubclickhouse.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.core.cli.Invocation;
import dev.pubsubclickhouse.core.log.JsonLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.logging.LogManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Off a terminal replay's errors are the same JSON log lines as the other programs', on stderr. */
class LogLinesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @AfterEach
  void restore() throws IOException {
    JsonLog.reset();
    LogManager.getLogManager().readConfiguration();
  }

  private int run(String... args) {
    return Main.run(
        new Invocation(
            Map.of(),
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            false));
  }

  @Test
  void aWrongSettingIsOneJsonErrorLineOnStderrAndNothingOnStdout() throws Exception {
    int code = run("subscription", "--subscription=dead-letters", "--topic=projects/p/topics/t");

    assertThat(code).isEqualTo(ExitCode.USAGE);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    String printed = err.toString(StandardCharsets.UTF_8);
    assertThat(printed).endsWith("\n").doesNotContain("\n{");
    JsonNode line = JSON.readTree(printed);
    assertThat(line.path("severity").asText()).isEqualTo("ERROR");
    assertThat(line.path("message").asText())
        .isEqualTo(
            "replay: --subscription: expected projects/P/subscriptions/S, got 'dead-letters'");
  }

  @Test
  void anUnknownFlagIsOneToo() throws Exception {
    int code = run("table", "--nope");

    assertThat(code).isEqualTo(ExitCode.USAGE);
    JsonNode line = JSON.readTree(err.toString(StandardCharsets.UTF_8));
    assertThat(line.path("severity").asText()).isEqualTo("ERROR");
    assertThat(line.path("message").asText()).contains("Unknown option: '--nope'");
  }
}
