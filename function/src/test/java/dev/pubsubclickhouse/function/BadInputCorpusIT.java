package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile and malformed input, each with a defined answer: the exact status, and where the message
 * ends (nowhere: Pub/Sub keeps it; the target table; the dead-letter table with a precise reason).
 * The service keeps serving throughout: a good message afterwards is written, and nothing was
 * answered by the catch-all for the handler's own failures. docs/reliability.md lists the same
 * table.
 */
@ClickHouseTest
class BadInputCorpusIT {
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  /** Where a message ends. */
  enum End {
    /**
     * Not acknowledged and kept nowhere by the service: Pub/Sub redelivers it, then dead-letters.
     */
    PUBSUB,
    TARGET,
    DEAD_LETTER_TABLE
  }

  /**
   * One input.
   *
   * @param error for {@link End#DEAD_LETTER_TABLE}: how the error_message starts
   */
  record Case(
      String name,
      String method,
      Map<String, String> headers,
      Body body,
      int status,
      End end,
      String error) {}

  /** A body sent with a length, or streamed (chunked) without one. */
  record Body(byte[] bytes, boolean chunked) {
    static Body of(byte[] bytes) {
      return new Body(bytes, false);
    }

    static Body of(String text) {
      return of(text.getBytes(StandardCharsets.UTF_8));
    }

    static Body none() {
      return new Body(null, false);
    }
  }

  private final TestDatabase database;
  private final ByteArrayOutputStream log = new ByteArrayOutputStream();
  private RunningService service;

  BadInputCorpusIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeEach
  void start() throws Exception {
    database.execute(
        "CREATE TABLE corpus (id String, s String, n Int64, f Float64, d Decimal(18, 4),"
            + " _pubsub_message_id String, CONSTRAINT finite CHECK isFinite(f))"
            + " ENGINE = MergeTree ORDER BY id");
    database.execute(
        "CREATE TABLE corpus_errors (raw_message String, error_message String, stack_trace String,"
            + " failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");
    JsonLog.redirect(new PrintStream(log, true, StandardCharsets.UTF_8));
    service =
        RunningService.start(
            database, "corpus", Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", "corpus_errors"));
  }

  @AfterEach
  void stop() throws Exception {
    service.close();
    JsonLog.redirect(System.out);
  }

  private static String row(String id, String fields) {
    return "{\"id\":\"" + id + "\"" + (fields.isEmpty() ? "" : "," + fields) + "}";
  }

  private static String good(String id) {
    return row(id, "\"s\":\"text\",\"n\":1,\"f\":1.5,\"d\":\"2.25\"");
  }

  /** A wrapped push request whose data is {@code data} and whose message id is {@code id}. */
  private static byte[] envelope(String id, byte[] data) {
    return ("{\"message\":{\"messageId\":\""
            + id
            + "\",\"data\":\""
            + Base64.getEncoder().encodeToString(data)
            + "\",\"publishTime\":\"2026-01-15T12:00:00Z\"},"
            + "\"subscription\":\"projects/p/subscriptions/s\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] envelope(String id, String data) {
    return envelope(id, data.getBytes(StandardCharsets.UTF_8));
  }

  private static Case post(String name, byte[] body, int status, End end, String error) {
    return new Case(
        name,
        "POST",
        Map.of("Content-Type", "application/json"),
        Body.of(body),
        status,
        end,
        error);
  }

  private static String nested(int depth) {
    return "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
  }

  static List<Case> corpus() {
    List<Case> cases = new ArrayList<>();
    String digits = "9".repeat(1000);
    // The envelope itself.
    cases.add(
        post("invalid JSON envelope", bytes("{\"message\":{\"data\":"), 400, End.PUBSUB, null));
    cases.add(
        post("JSON that is no push request", bytes("{\"no\":\"message\"}"), 400, End.PUBSUB, null));
    cases.add(
        post("message that is not an object", bytes("{\"message\":[1]}"), 400, End.PUBSUB, null));
    cases.add(
        post(
            "trailing bytes after the envelope",
            bytes(new String(envelope("x", good("x")), StandardCharsets.UTF_8) + "{}"),
            400,
            End.PUBSUB,
            null));
    cases.add(
        post(
            "envelope that is not UTF-8",
            concat(
                bytes("{\"message\":{\"data\":\"e30=\",\"messageId\":\""),
                new byte[] {(byte) 0xC3, 0x28},
                bytes("\"}}")),
            400,
            End.PUBSUB,
            null));
    cases.add(
        post(
            "envelope nested 10,000 deep",
            bytes(
                "{\"message\":{\"data\":\"e30=\",\"x\":"
                    + "[".repeat(10_000)
                    + "]".repeat(10_000)
                    + "}}"),
            400,
            End.PUBSUB,
            null));
    cases.add(
        post(
            "invalid base64",
            bytes("{\"message\":{\"data\":\"!!!!\",\"messageId\":\"b64\"}}"),
            400,
            End.PUBSUB,
            null));
    cases.add(
        post(
            "URL-safe base64 (Pub/Sub sends standard)",
            bytes("{\"message\":{\"data\":\"-_-_\",\"messageId\":\"b64url\"}}"),
            400,
            End.PUBSUB,
            null));
    cases.add(
        post(
            "neither data nor attributes",
            bytes("{\"message\":{\"messageId\":\"nothing\"}}"),
            400,
            End.PUBSUB,
            null));
    cases.add(
        new Case(
            "empty body",
            "POST",
            Map.of("Content-Type", "application/json"),
            Body.of(new byte[0]),
            400,
            End.PUBSUB,
            null));
    // The data.
    cases.add(
        post(
            "data not UTF-8",
            envelope("c-not-utf8", new byte[] {(byte) 0xC3, 0x28, '{', '}'}),
            204,
            End.DEAD_LETTER_TABLE,
            "payload is not UTF-8: byte 0 (0xC3)"));
    cases.add(
        post(
            "data with an overlong UTF-8 form (C0 AF, a lenient \"/\")",
            envelope(
                "c-overlong",
                concat(
                    bytes("{\"id\":\"c-overlong\",\"s\":\""),
                    new byte[] {(byte) 0xC0, (byte) 0xAF},
                    bytes("\"}"))),
            204,
            End.DEAD_LETTER_TABLE,
            "payload is not UTF-8: byte 24 (0xC0)"));
    cases.add(
        post(
            "data with a key twice",
            envelope("c-key-twice", "{\"id\":\"c-key-twice\",\"s\":\"first\",\"s\":\"second\"}"),
            204,
            End.DEAD_LETTER_TABLE,
            "payload is not valid JSON: Duplicate field 's'"));
    cases.add(
        post(
            "data of 10,001 empty objects",
            envelope("c-rows", "[" + "{},".repeat(10_000) + "{}]"),
            204,
            End.DEAD_LETTER_TABLE,
            "payload has more than 10000 rows"));
    cases.add(
        post(
            "an attribute with a lone surrogate",
            bytes(
                "{\"message\":{\"data\":\"e30=\",\"messageId\":\"c-surrogate\","
                    + "\"attributes\":{\"k\":\"\\ud800\"}}}"),
            400,
            End.PUBSUB,
            null));
    cases.add(
        post(
            "an envelope with \"data\" twice",
            bytes("{\"message\":{\"data\":\"e30=\",\"data\":\"W10=\",\"messageId\":\"c-twice\"}}"),
            400,
            End.PUBSUB,
            null));
    cases.add(
        post(
            "data not JSON",
            envelope("c-not-json", "hello"),
            204,
            End.DEAD_LETTER_TABLE,
            "payload is not valid JSON: "));
    cases.add(
        post(
            "data empty, attributes only",
            bytes(
                "{\"message\":{\"data\":\"\",\"attributes\":{\"k\":\"v\"},\"messageId\":\"c-empty-data\"}}"),
            204,
            End.DEAD_LETTER_TABLE,
            "payload is empty"));
    cases.add(
        post(
            "data a JSON string, not an object",
            envelope("c-json-string", "\"text\""),
            204,
            End.DEAD_LETTER_TABLE,
            "payload must be a JSON object or an array of objects"));
    cases.add(
        post(
            "data an empty JSON array",
            envelope("c-empty-array", "[]"),
            204,
            End.DEAD_LETTER_TABLE,
            "payload is an empty JSON array"));
    cases.add(
        post(
            "data nested 10,000 deep",
            envelope("c-deep", nested(10_000)),
            204,
            End.DEAD_LETTER_TABLE,
            "payload exceeds a JSON limit: Document nesting depth (201) exceeds"));
    cases.add(
        post(
            "a 10 MB string",
            envelope(
                "c-10mb",
                row("c-10mb", "\"s\":\"" + "x".repeat(10_000_000) + "\",\"n\":1,\"f\":1,\"d\":1")),
            204,
            End.TARGET,
            null));
    cases.add(post("100,000 fields", envelope("c-fields", fields(100_000)), 204, End.TARGET, null));
    cases.add(
        post(
            "1,000 digits into Int64",
            envelope(
                "c-digits-int",
                row("c-digits-int", "\"s\":\"\",\"n\":" + digits + ",\"f\":1,\"d\":1")),
            204,
            End.DEAD_LETTER_TABLE,
            "column 'n' (Int64) rejects 9999"));
    cases.add(
        post(
            "1,000 digits into Float64",
            envelope(
                "c-digits-float",
                row("c-digits-float", "\"s\":\"\",\"n\":1,\"f\":" + digits + ",\"d\":1")),
            204,
            End.DEAD_LETTER_TABLE,
            "column 'f' (Float64) rejects 9999"));
    cases.add(
        post(
            "1,000 digits into Decimal(18, 4)",
            envelope(
                "c-digits-decimal",
                row("c-digits-decimal", "\"s\":\"\",\"n\":1,\"f\":1,\"d\":" + digits)),
            204,
            End.DEAD_LETTER_TABLE,
            "column 'd' (Decimal(18, 4)) rejects 9999"));
    cases.add(
        post(
            "1,000 digits into String",
            envelope(
                "c-digits-string",
                row("c-digits-string", "\"s\":" + digits + ",\"n\":1,\"f\":1,\"d\":1")),
            204,
            End.TARGET,
            null));
    cases.add(
        post(
            "1,001 digits",
            envelope(
                "c-digits-1001",
                row("c-digits-1001", "\"s\":" + digits + "9,\"n\":1,\"f\":1,\"d\":1")),
            204,
            End.DEAD_LETTER_TABLE,
            "payload exceeds a JSON limit: Number value length (1001) exceeds"));
    cases.add(
        post(
            "NaN as a bare token",
            envelope("c-nan-token", row("c-nan-token", "\"s\":\"\",\"n\":1,\"f\":NaN,\"d\":1")),
            204,
            End.DEAD_LETTER_TABLE,
            "payload is not valid JSON: Non-standard token 'NaN'"));
    cases.add(
        post(
            "an exponent of 25 digits (1e92987364836286162198047)",
            envelope(
                "c-exponent",
                row("c-exponent", "\"s\":\"\",\"n\":1,\"f\":1e92987364836286162198047,\"d\":1")),
            204,
            End.DEAD_LETTER_TABLE,
            "payload has a number that cannot be read: "));
    cases.add(
        post(
            "\"NaN\" into Int64",
            envelope("c-nan-int", row("c-nan-int", "\"s\":\"\",\"n\":\"NaN\",\"f\":1,\"d\":1")),
            204,
            End.DEAD_LETTER_TABLE,
            "column 'n' (Int64) rejects \"NaN\": not a number"));
    cases.add(
        post(
            "\"Infinity\" into Decimal(18, 4)",
            envelope(
                "c-inf-decimal",
                row("c-inf-decimal", "\"s\":\"\",\"n\":1,\"f\":1,\"d\":\"Infinity\"")),
            204,
            End.DEAD_LETTER_TABLE,
            "column 'd' (Decimal(18, 4)) rejects \"Infinity\": not a number"));
    cases.add(
        post(
            "\"Infinity\" into Float64 with CHECK isFinite",
            envelope(
                "c-inf-float", row("c-inf-float", "\"s\":\"\",\"n\":1,\"f\":\"Infinity\",\"d\":1")),
            204,
            End.DEAD_LETTER_TABLE,
            "ClickHouse refused it: Code: 469."));
    // The HTTP request around it.
    cases.add(
        new Case(
            "no Content-Type",
            "POST",
            Map.of(),
            Body.of(envelope("c-no-type", good("c-no-type"))),
            204,
            End.TARGET,
            null));
    cases.add(
        new Case(
            "Content-Type text/plain",
            "POST",
            Map.of("Content-Type", "text/plain"),
            Body.of(envelope("c-text-type", good("c-text-type"))),
            204,
            End.TARGET,
            null));
    cases.add(
        new Case(
            "Content-Type application/xml",
            "POST",
            Map.of("Content-Type", "application/xml"),
            Body.of(envelope("c-xml-type", good("c-xml-type"))),
            204,
            End.TARGET,
            null));
    for (String method : List.of("GET", "PUT", "DELETE", "PATCH")) {
      cases.add(
          new Case(
              method + " /",
              method,
              Map.of(),
              method.equals("GET") || method.equals("DELETE")
                  ? Body.none()
                  : Body.of(envelope("c-" + method, good("c-" + method))),
              405,
              End.PUBSUB,
              null));
    }
    cases.add(
        new Case(
            "a 20 KB header",
            "POST",
            Map.of("X-Padding", "x".repeat(20_000)),
            Body.of(envelope("c-header", good("c-header"))),
            431,
            End.PUBSUB,
            null));
    byte[] tooLarge = new byte[14_680_064 + 1];
    java.util.Arrays.fill(tooLarge, (byte) ' ');
    cases.add(
        new Case(
            "a body over the limit (14 MiB + 1)",
            "POST",
            Map.of(),
            Body.of(tooLarge),
            413,
            End.PUBSUB,
            null));
    cases.add(
        new Case(
            "a chunked body over the limit",
            "POST",
            Map.of(),
            new Body(tooLarge, true),
            413,
            End.PUBSUB,
            null));
    return cases;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  private static String fields(int count) {
    StringBuilder json =
        new StringBuilder(count * 16)
            .append("{\"id\":\"c-fields\",\"s\":\"\",\"n\":1,\"f\":1,\"d\":1");
    for (int i = 0; i < count; i++) {
      json.append(",\"k").append(i).append("\":").append(i);
    }
    return json.append('}').toString();
  }

  private HttpResponse<String> send(Case c) throws Exception {
    HttpRequest.BodyPublisher body =
        c.body().bytes() == null
            ? HttpRequest.BodyPublishers.noBody()
            : c.body().chunked()
                ? HttpRequest.BodyPublishers.ofInputStream(
                    () -> new ByteArrayInputStream(c.body().bytes()))
                : HttpRequest.BodyPublishers.ofByteArray(c.body().bytes());
    HttpRequest.Builder request =
        HttpRequest.newBuilder(service.url())
            .timeout(Duration.ofSeconds(60))
            .method(c.method(), body);
    c.headers().forEach(request::header);
    try {
      return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      throw new AssertionError(c.name() + ": no answer: " + e, e);
    }
  }

  /** The message id a case's stored row or error row is found by. */
  private static String messageId(Case c) {
    byte[] body = c.body().bytes();
    if (body == null) {
      return null;
    }
    String text = new String(body, 0, Math.min(body.length, 200_000), StandardCharsets.ISO_8859_1);
    java.util.regex.Matcher id =
        java.util.regex.Pattern.compile("\"messageId\":\"(c-[^\"]+)\"").matcher(text);
    return id.find() ? id.group(1) : null;
  }

  @Test
  void everyBadInputHasItsDefinedAnswerAndTheServiceKeepsServing() throws Exception {
    List<String> table = new ArrayList<>();
    table.add("| input | status | where it ends |");
    table.add("|---|---|---|");
    Map<String, String> mismatches = new LinkedHashMap<>();
    for (Case c : corpus()) {
      HttpResponse<String> response = send(c);
      if (response.statusCode() != c.status()) {
        mismatches.put(
            c.name(), "status " + response.statusCode() + " (" + response.body().strip() + ")");
        continue;
      }
      if (c.status() == 405 && !response.headers().allValues("Allow").contains("POST")) {
        mismatches.put(c.name(), "405 without Allow: POST");
      }
      String id = messageId(c);
      String where =
          switch (c.end()) {
            case PUBSUB -> "not acknowledged; Pub/Sub redelivers it, then dead-letters it";
            case TARGET -> "the target table";
            case DEAD_LETTER_TABLE -> "the dead-letter table: `" + c.error() + "...`";
          };
      long stored =
          id == null ? 0 : database.count("corpus WHERE _pubsub_message_id = '" + id + "'");
      String errors =
          id == null
              ? ""
              : database.query(
                  "SELECT error_message FROM corpus_errors WHERE stack_trace = 'messageId="
                      + id
                      + "' OR stack_trace LIKE 'messageId="
                      + id
                      + " %'");
      switch (c.end()) {
        case TARGET -> {
          if (stored != 1 || !errors.isEmpty()) {
            mismatches.put(c.name(), "stored " + stored + ", errors '" + errors + "'");
          }
        }
        case DEAD_LETTER_TABLE -> {
          if (stored != 0 || !errors.replace("\\'", "'").startsWith(c.error())) {
            mismatches.put(c.name(), "stored " + stored + ", errors '" + errors + "'");
          }
        }
        case PUBSUB -> {
          if (stored != 0 || !errors.isEmpty()) {
            mismatches.put(c.name(), "stored " + stored + ", errors '" + errors + "'");
          }
        }
      }
      table.add("| " + c.name() + " | " + c.status() + " | " + where + " |");
    }
    Path results = Path.of(System.getProperty("reliability.results", "target/reliability-results"));
    Files.createDirectories(results);
    Files.write(results.resolve("bad-input.md"), table);

    assertThat(mismatches).as("cases whose answer differs from the defined one").isEmpty();
    assertThat(service.push("c-after", good("c-after"))).isEqualTo(204);
    assertThat(database.count("corpus WHERE _pubsub_message_id = 'c-after'")).isEqualTo(1);
    assertThat(service.get("/healthz").statusCode()).isEqualTo(200);
    assertThat(log.toString(StandardCharsets.UTF_8))
        .as("nothing answered by the catch-all for the handler's own failures")
        .doesNotContain("request failed unexpectedly");
    assertThat(service.get("/metrics").body())
        .contains("pubsub_clickhouse_unavailable_total 0.0\n");
    assertThat(database.query("SELECT length(s) FROM corpus WHERE id = 'c-10mb'"))
        .isEqualTo("10000000");
  }
}
