package dev.pubsubclickhouse.backfill.progress;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProgressTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final JobLog log =
      new JobLog(
          new PrintStream(out, true, StandardCharsets.UTF_8),
          false,
          Clock.fixed(Instant.parse("2026-01-15T12:00:00Z"), ZoneOffset.UTC));

  @Test
  void theBarShowsRowsOfTheTotalAndTheRejectedOnes() {
    Progress progress = new Progress(1000, log, null);
    progress.pageRead(500);
    progress.pageDone(498, 2, 2);
    assertThat(progress.barLine())
        .startsWith("[###############               ]  50.0% 500/1,000 rows  ")
        .contains(" rows/s")
        .endsWith("  2 rejected");
  }

  @Test
  void offATerminalProgressIsAJsonLine() {
    Progress progress = new Progress(-1, log, null);
    progress.pageDone(10, 0, 0);
    progress.report();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .startsWith(
            "{\"severity\":\"INFO\",\"message\":\"progress\",\"time\":\"2026-01-15T12:00:00Z\","
                + "\"read\":0,\"written\":10,\"rejected\":0,\"deadLettered\":0,\"rowsPerSecond\":");
  }

  @Test
  void onATerminalLinesArePlainText() {
    JobLog plain =
        new JobLog(new PrintStream(out, true, StandardCharsets.UTF_8), true, Clock.systemUTC());
    plain.warning("fields ignored", Map.of("fields", "a"));
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo("WARNING: fields ignored (fields=a)\n");
  }
}
