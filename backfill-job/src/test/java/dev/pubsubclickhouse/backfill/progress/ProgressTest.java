package dev.pubsubclickhouse.backfill.progress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.log.JsonLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ProgressTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  @BeforeEach
  void capture() {
    JsonLog.redirect(new PrintStream(out, true, StandardCharsets.UTF_8));
    JsonLog.clock(Clock.fixed(Instant.parse("2026-01-15T12:00:00Z"), ZoneOffset.UTC));
  }

  @AfterEach
  void restore() {
    JsonLog.reset();
  }

  @Test
  void theBarShowsRowsOfTheTotalAndTheRejectedOnes() {
    Progress progress = new Progress(1000, null);
    progress.pageRead(500);
    progress.pageDone(498, 2, 2);
    assertThat(progress.barLine())
        .startsWith("[###############               ]  50.0% 500/1,000 rows  ")
        .contains(" rows/s")
        .endsWith("  2 rejected");
  }

  @Test
  void offATerminalProgressIsAJsonLine() {
    Progress progress = new Progress(-1, null);
    progress.pageDone(10, 0, 0);
    progress.report();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .startsWith(
            "{\"severity\":\"INFO\",\"message\":\"progress\",\"time\":\"2026-01-15T12:00:00Z\","
                + "\"read\":0,\"written\":10,\"rejected\":0,\"deadLettered\":0,\"rowsPerSecond\":");
  }

  @Test
  void onATerminalLinesArePlainText() {
    JsonLog.format(JsonLog.Format.TEXT);
    JsonLog.warning("fields ignored", Map.of("fields", "a"));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo("WARNING: fields ignored (fields=a)\n");
  }
}
