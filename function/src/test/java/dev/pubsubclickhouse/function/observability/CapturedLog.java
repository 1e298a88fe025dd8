package dev.pubsubclickhouse.function.observability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.core.log.JsonLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** The log lines a test writes: kept in memory while it runs, and stdout's again after it. */
final class CapturedLog implements BeforeEachCallback, AfterEachCallback {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  @Override
  public void beforeEach(ExtensionContext context) {
    JsonLog.redirect(new PrintStream(captured, true, StandardCharsets.UTF_8));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    JsonLog.redirect(System.out);
  }

  /** Every line written since the test started or {@link #clear} was called, in order. */
  List<JsonNode> lines() throws IOException {
    List<JsonNode> lines = new ArrayList<>();
    String text = captured.toString(StandardCharsets.UTF_8);
    if (text.isEmpty()) {
      return lines;
    }
    for (String line : text.split("\n")) {
      lines.add(JSON.readTree(line));
    }
    return lines;
  }

  /** Forgets the lines written so far. */
  void clear() {
    captured.reset();
  }
}
