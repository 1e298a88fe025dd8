package dev.pubsubclickhouse.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The log's lines for a person at a terminal, its human text, and a program's own threshold. */
class JsonLogFormatTest {
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  @BeforeEach
  void capture() {
    JsonLog.redirect(new PrintStream(captured, true, StandardCharsets.UTF_8));
    JsonLog.clock(Clock.fixed(Instant.parse("2026-01-15T12:00:00Z"), ZoneOffset.UTC));
  }

  @AfterEach
  void restore() throws IOException {
    JsonLog.reset();
    LogManager.getLogManager().readConfiguration();
  }

  private String printed() {
    return captured.toString(StandardCharsets.UTF_8);
  }

  @Test
  void asTextALineIsItsMessageAndFieldsAfterItsSeverityUnlessInfo() {
    JsonLog.format(JsonLog.Format.TEXT);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("table", "db.t");
    fields.put("rows", 3);

    JsonLog.info("written", fields);
    JsonLog.warning("fields ignored", Map.of("fields", "a"));
    JsonLog.error("failed", Map.of(), new IllegalStateException("no route"));

    assertThat(printed())
        .isEqualTo(
            "written (table=db.t, rows=3)\n"
                + "WARNING: fields ignored (fields=a)\n"
                + "ERROR: failed (error=java.lang.IllegalStateException: no route)\n");
  }

  @Test
  void asMessagesALineHasNoSeverity() {
    JsonLog.format(JsonLog.Format.MESSAGE);

    JsonLog.error("replay stopped: ClickHouse is down", Map.of(), null);
    JsonLog.warning("skipped", Map.of("id", "m1"));

    assertThat(printed()).isEqualTo("replay stopped: ClickHouse is down\nskipped (id=m1)\n");
  }

  @Test
  void humanTextIsPrintedAsItIsWhateverTheFormatWithSecretsMasked() {
    JsonLog.neverPrint("s3cret-in-text");
    JsonLog.text("column plan:\n  id <- id\n");
    JsonLog.text("password s3cret-in-text\n");

    assertThat(printed()).isEqualTo("column plan:\n  id <- id\npassword [redacted]\n");
  }

  @Test
  void aLinesTimeComesFromTheLogsClock() {
    JsonLog.info("started", Map.of());

    assertThat(printed())
        .isEqualTo(
            "{\"severity\":\"INFO\",\"message\":\"started\",\"time\":\"2026-01-15T12:00:00Z\"}\n");
  }

  @Test
  void aProgramMayTakeOnlyLibraryRecordsAtWarningAndAboveFromEveryLibrary() {
    JsonLog.captureLibraryLogs(Level.WARNING);

    LoggerFactory.getLogger("com.clickhouse.client.api.Client").warn("pool {} is full", "main");
    Logger.getLogger("com.google.auth").info("below WARNING: left out");

    assertThat(printed())
        .isEqualTo(
            "{\"severity\":\"WARNING\",\"message\":\"pool main is full\","
                + "\"time\":\"2026-01-15T12:00:00Z\",\"logger\":\"com.clickhouse.client.api.Client\"}\n");
  }
}
