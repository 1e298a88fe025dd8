package dev.pubsubclickhouse.function.observability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Schema evolution's log lines: a flood of declined fields is counted, not logged line by line. */
class PushEvolutionEventsTest {
  private static final TableName EVENTS = new TableName("db", "events");
  private static final TableName CLICKS = new TableName("db", "clicks");

  @RegisterExtension final CapturedLog log = new CapturedLog();
  private final Metrics metrics = new Metrics();
  private final AtomicLong clock = new AtomicLong(-5);
  private final PushEvolutionEvents events = new PushEvolutionEvents(metrics, clock::get);

  private List<String> lines() throws Exception {
    List<String> lines = new ArrayList<>();
    for (JsonNode json : log.lines()) {
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
