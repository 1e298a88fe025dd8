package dev.pubsubclickhouse.function.observability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.TableName;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Schema evolution's log lines: a flood of declined fields is counted, not logged line by line. */
class PushEvolutionEventsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TableName EVENTS = new TableName("db", "events");
  private static final TableName CLICKS = new TableName("db", "clicks");

  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
  private final Metrics metrics = new Metrics();
  private final AtomicLong clock = new AtomicLong(-5);
  private final PushEvolutionEvents events = new PushEvolutionEvents(metrics, clock::get);

  @BeforeEach
  void capture() {
    JsonLog.redirect(new PrintStream(captured, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void restore() {
    JsonLog.redirect(System.out);
  }

  private List<String> lines() throws Exception {
    List<String> lines = new ArrayList<>();
    for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
      JsonNode json = JSON.readTree(line);
      lines.add(
          json.get("message").asText()
              + " "
              + json.get("table").asText()
              + " "
              + json.get("field").asText()
              + (json.has("declinedWithoutALineSinceTheLast")
                  ? " +" + json.get("declinedWithoutALineSinceTheLast").asInt()
                  : ""));
    }
    return lines;
  }

  @Test
  void declinedFieldsGetAtMostOneLinePerTablePerIntervalAndAreAllCounted() throws Exception {
    for (int i = 0; i < 1000; i++) {
      events.fieldNotAdded(EVENTS, "f" + i, "over the budget");
    }
    events.fieldNotAdded(CLICKS, "bad-name", "not a plain column name");
    clock.addAndGet(PushEvolutionEvents.DECLINED_LOG_INTERVAL.toNanos());
    events.fieldNotAdded(EVENTS, "f1000", "over the budget");

    assertThat(lines())
        .containsExactly(
            "a new field gets no column db.events f0",
            "a new field gets no column db.clicks bad-name",
            "a new field gets no column db.events f1000 +999");
    assertThat(metrics.fieldsNotAdded.value()).isEqualTo(1002);
  }
}
