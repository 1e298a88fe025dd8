package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.IntegrationFixtures.createDeadLetterTable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A message that cannot be written and has no dead-letter sink is answered 422 with the reason its
 * dead letter would hold: the same text as the dead-letter table's {@code error_message}, at most 1
 * KiB, never a secret.
 */
@ClickHouseTest
class RefusalReasonsIT {
  private static final String EVENTS =
      "(event_time DateTime, service String, _pubsub_message_id String)"
          + " ENGINE = MergeTree ORDER BY event_time";

  private final TestDatabase database;

  RefusalReasonsIT(TestDatabase database) {
    this.database = database;
  }

  /** The table, and its dead-letter table {@code table_errors}. */
  private void createTables(String table, String columns) {
    database.execute("CREATE TABLE " + table + " " + columns);
    createDeadLetterTable(database, table + "_errors");
  }

  /** The answer to {@code data} from a service without a dead-letter sink. */
  private HttpResponse<byte[]> refusal(String table, String data) throws Exception {
    try (RunningService service = RunningService.start(database, table, Map.of())) {
      return service.answer("r-1", data, Map.of());
    }
  }

  /** The {@code error_message} that a service with a dead-letter table gives {@code data}. */
  private String deadLetterReason(String table, String data) throws Exception {
    try (RunningService service =
        RunningService.start(
            database, table, Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", table + "_errors"))) {
      assertThat(service.push("d-1", data)).isEqualTo(204);
    }
    return database.query(
        "SELECT error_message FROM " + table + "_errors FORMAT TSVRaw"); // unescaped
  }

  private static String text(HttpResponse<byte[]> answer) throws Exception {
    // Strict: a body cut inside a character would throw here.
    return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(answer.body())).toString();
  }

  @Test
  void aValueThatDoesNotFitItsColumnIsAnsweredWithItsDeadLettersReason() throws Exception {
    createTables("mapping", EVENTS);
    String data = "{\"event_time\":\"yesterday\",\"service\":\"api\"}";
    HttpResponse<byte[]> answer = refusal("mapping", data);
    assertThat(answer.statusCode()).isEqualTo(422);
    assertThat(answer.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
    assertThat(text(answer))
        .isEqualTo(
            "column 'event_time' (DateTime) rejects \"yesterday\": not a date-time"
                + " (ISO-8601, YYYY-MM-DD hh:mm:ss, or epoch seconds)\n")
        .isEqualTo(deadLetterReason("mapping", data) + "\n");
  }

  @Test
  void aRowClickHouseRefusesIsAnsweredWithClickHousesReason() throws Exception {
    createTables(
        "checked",
        "(n UInt32, _pubsub_message_id String, CONSTRAINT small CHECK n < 100)"
            + " ENGINE = MergeTree ORDER BY n");
    String data = "{\"n\":500}";
    HttpResponse<byte[]> answer = refusal("checked", data);
    assertThat(answer.statusCode()).isEqualTo(422);
    String uuid =
        database.query(
            "SELECT uuid FROM system.tables WHERE database = currentDatabase() AND name = 'checked'");
    assertThat(text(answer))
        .isEqualTo(
            "ClickHouse refused it: Code: 469. DB::Exception: Constraint `small` for table "
                + database.name()
                + ".checked ("
                + uuid
                + ") is violated at row 1. Expression: (n < 100). Column values: n = 500."
                + " (VIOLATED_CONSTRAINT) (version "
                + database.query("SELECT version()")
                + ")\n")
        .isEqualTo(deadLetterReason("checked", data) + "\n");
  }

  @Test
  void aLongReasonIsCutTo1KiBOnACharacterBoundaryAndSaysSo() throws Exception {
    createTables("long", EVENTS);
    // 40 rows, each refused with an excerpt of 64 two-byte characters.
    StringBuilder data = new StringBuilder("[");
    for (int i = 0; i < 40; i++) {
      data.append(i == 0 ? "" : ",").append("{\"event_time\":\"").append("é".repeat(70));
      data.append("\",\"service\":\"s\"}");
    }
    data.append(']');
    HttpResponse<byte[]> answer = refusal("long", data.toString());
    String reason = deadLetterReason("long", data.toString());
    assertThat(reason.getBytes(StandardCharsets.UTF_8).length).isGreaterThan(1024);
    assertThat(answer.statusCode()).isEqualTo(422);
    assertThat(answer.body().length).isBetween(1020, 1024);
    String text = text(answer);
    assertThat(text).endsWith("...\n");
    assertThat(reason).startsWith(text.substring(0, text.length() - 4));
  }

  @Test
  void neitherThePasswordNorTheRequestsTokenIsEverInTheAnswerOrTheLog() throws Exception {
    Assumptions.assumeTrue(
        database.server().url().startsWith("http://127.0.0.1"), "needs the local pipeline user");
    String password = LocalClickHouse.PIPELINE_PASSWORD;
    String token = "eyJhbGciOiJSUzI1NiJ9.a-push-token";
    createTables(
        "secrets",
        "(event_time DateTime, s String, _pubsub_message_id String,"
            + " CONSTRAINT short CHECK length(s) < 5) ENGINE = MergeTree ORDER BY event_time");
    Map<String, String> settings = new HashMap<>();
    settings.put("CLICKHOUSE_USER", LocalClickHouse.PIPELINE_USER);
    settings.put("CLICKHOUSE_PASSWORD", password);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    JsonLog.redirect(new PrintStream(log, true, StandardCharsets.UTF_8));
    String mapping;
    String clickHouse;
    String bearer;
    try (RunningService service = RunningService.start(database, "secrets", settings)) {
      mapping = text(service.answer("p-1", "{\"event_time\":\"" + password + "\"}", Map.of()));
      clickHouse =
          text(
              service.answer(
                  "p-2", "{\"event_time\":1768478400,\"s\":\"" + password + "\"}", Map.of()));
      bearer =
          text(
              service.answer(
                  "p-3",
                  "{\"event_time\":\"" + token + "\"}",
                  Map.of("Authorization", "Bearer " + token)));
    } finally {
      JsonLog.redirect(System.out);
    }
    assertThat(mapping)
        .isEqualTo(
            "column 'event_time' (DateTime) rejects \"[redacted]\": not a date-time"
                + " (ISO-8601, YYYY-MM-DD hh:mm:ss, or epoch seconds)\n");
    assertThat(clickHouse)
        .startsWith("ClickHouse refused it: Code: 469.")
        .contains("Column values: s = '[redacted]'");
    assertThat(bearer).contains("rejects \"[redacted]\"").doesNotContain(token);
    String lines = log.toString(StandardCharsets.UTF_8);
    assertThat(lines)
        .contains(
            "\"messageId\":\"p-1\",\"outcome\":\"answered 422\","
                + "\"reason\":\"column 'event_time' (DateTime) rejects \\\"[redacted]\\\"")
        .contains("\"messageId\":\"p-3\",\"outcome\":\"answered 422\"")
        .doesNotContain(password)
        .doesNotContain(token);
  }

  @Test
  void aSecretWithAQuoteIsMaskedInClickHousesQuotingOfIt() throws Exception {
    // Registered as the service registers its ClickHouse password; a generated password often
    // holds a quote or a backslash, which ClickHouse escapes where it quotes a value.
    String secret = "refusal-it's-a\\secret";
    JsonLog.neverPrint(secret);
    createTables(
        "quoted",
        "(s String, _pubsub_message_id String, CONSTRAINT short CHECK length(s) < 5)"
            + " ENGINE = MergeTree ORDER BY s");
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    JsonLog.redirect(new PrintStream(log, true, StandardCharsets.UTF_8));
    String answer;
    try (RunningService service = RunningService.start(database, "quoted", Map.of())) {
      answer = text(service.answer("q-1", "{\"s\":\"refusal-it's-a\\\\secret\"}", Map.of()));
    } finally {
      JsonLog.redirect(System.out);
    }
    assertThat(answer)
        .startsWith("ClickHouse refused it: Code: 469.")
        .contains("Column values: s = '[redacted]'.")
        .doesNotContain("refusal-it");
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains("\"messageId\":\"q-1\"")
        .doesNotContain("refusal-it");
  }

  @Test
  void everyMessageAnswered422IsCountedThoughItsLineMayBeLeftOut() throws Exception {
    createTables(
        "counted",
        "(n UInt32, _pubsub_message_id String, CONSTRAINT small CHECK n < 100)"
            + " ENGINE = MergeTree ORDER BY n");
    try (RunningService service = RunningService.start(database, "counted", Map.of())) {
      assertThat(service.answer("c-1", "{\"n\":500}", Map.of()).statusCode()).isEqualTo(422);
      assertThat(service.answer("c-2", "{\"n\":\"many\"}", Map.of()).statusCode()).isEqualTo(422);
      assertThat(service.answer("c-3", "{\"n\":5}", Map.of()).statusCode()).isEqualTo(204);
      assertThat(service.service.metrics().snapshot())
          .containsEntry("unprocessable", 2L)
          .containsEntry("dead-lettered", 0L);
    }
    assertThat(database.query("SELECT n FROM counted")).isEqualTo("5");
  }
}
