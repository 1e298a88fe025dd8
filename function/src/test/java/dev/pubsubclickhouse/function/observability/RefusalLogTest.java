package dev.pubsubclickhouse.function.observability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.messages.PubSubMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The refused messages' log lines: five a second, and the next line counts those left out. */
class RefusalLogTest {
  private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);

  @RegisterExtension final CapturedLog captured = new CapturedLog();
  private final AtomicLong clock = new AtomicLong(-7 * MILLI);
  private final RefusalLog log = new RefusalLog(clock::get);

  private static PubSubMessage message(String id) {
    return PubSubMessage.builder()
        .messageId(id)
        .publishTime("2026-01-15T12:34:56Z")
        .subscription("projects/p/subscriptions/s")
        .deliveryAttempt(1)
        .build();
  }

  /** Each line as "severity message messageId outcome reason [notLogged]". */
  private List<String> lines() throws Exception {
    List<String> lines = new ArrayList<>();
    for (JsonNode json : captured.lines()) {
      lines.add(
          String.join(
              " ",
              json.get("severity").asText(),
              json.get("message").asText(),
              json.get("messageId").asText(),
              json.get("outcome").asText(),
              json.get("reason").asText(),
              json.has("notLogged") ? json.get("notLogged").asText() : "-"));
    }
    return lines;
  }

  @Test
  void fiveLinesASecondAndTheNextLineSaysHowManyWereLeftOut() throws Exception {
    for (int i = 0; i < 12; i++) {
      log.refused(message("m-" + i), i % 2 == 0, "reason " + i);
      clock.addAndGet(10 * MILLI);
    }
    assertThat(lines())
        .containsExactly(
            "WARNING a message cannot be written m-0 dead-lettered reason 0 -",
            "WARNING a message cannot be written m-1 answered 422 reason 1 -",
            "WARNING a message cannot be written m-2 dead-lettered reason 2 -",
            "WARNING a message cannot be written m-3 answered 422 reason 3 -",
            "WARNING a message cannot be written m-4 dead-lettered reason 4 -");
    captured.clear();
    clock.addAndGet(879 * MILLI); // 999 ms after the first line: still its second
    log.refused(message("m-12"), true, "reason 12");
    assertThat(lines()).isEmpty();
    clock.addAndGet(MILLI);
    log.refused(message("m-13"), false, "reason 13");
    log.refused(message("m-14"), false, "reason 14");
    assertThat(lines())
        .containsExactly(
            "WARNING a message cannot be written m-13 answered 422 reason 13 8",
            "WARNING a message cannot be written m-14 answered 422 reason 14 -");
  }

  @Test
  void aMessageWithoutAnIdIsLoggedWithAnEmptyOne() throws Exception {
    log.refused(PubSubMessage.builder().build(), false, "why");
    assertThat(lines()).containsExactly("WARNING a message cannot be written  answered 422 why -");
  }
}
