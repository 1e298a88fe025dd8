package dev.pubsubclickhouse.backfill.progress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.log.JsonLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The job's library records: its own log lines, from WARNING up, as Main captures them. */
class LibraryLogsTest {
  @AfterEach
  void restore() throws IOException {
    JsonLog.reset();
    LogManager.getLogManager().readConfiguration();
  }

  @Test
  void slf4jAndJavaUtilLoggingRecordsBecomeTheJobsJsonLines() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    JsonLog.redirect(new PrintStream(out, true, StandardCharsets.UTF_8));
    JsonLog.clock(Clock.fixed(Instant.parse("2026-01-15T12:00:00Z"), ZoneOffset.UTC));
    JsonLog.captureLibraryLogs(Level.WARNING);

    LoggerFactory.getLogger("com.clickhouse.client.api.Client").warn("pool {} is full", "main");
    Logger.getLogger("io.grpc.internal.ManagedChannelImpl")
        .log(Level.SEVERE, "channel {0} failed", new Object[] {"c1"});
    Logger.getLogger("com.google.auth").info("below WARNING: left out");

    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"severity\":\"WARNING\",\"message\":\"pool main is full\","
                + "\"time\":\"2026-01-15T12:00:00Z\",\"logger\":\"com.clickhouse.client.api.Client\"}\n"
                + "{\"severity\":\"ERROR\",\"message\":\"channel c1 failed\","
                + "\"time\":\"2026-01-15T12:00:00Z\","
                + "\"@type\":\"type.googleapis.com/google.devtools.clouderrorreporting.v1beta1"
                + ".ReportedErrorEvent\","
                + "\"logger\":\"io.grpc.internal.ManagedChannelImpl\"}\n");
  }
}
