package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A seeded fuzz of push requests and row values against the real service and ClickHouse.
 * Properties: the handler never answers 5xx (its own failures would show as "request failed
 * unexpectedly" and 503), a well-formed push request is always acknowledged, and no acknowledged
 * message is lost: every row of it is in the target table, or the whole message (none of its rows)
 * is in the dead-letter table once.
 *
 * <p>{@code -Dfuzz.seed=N} replays a run; {@code -Dfuzz.messages=N} makes it longer (the soak runs
 * 5,000). A failure prints the seed and the offending message.
 */
@ClickHouseTest
class PushFuzzIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  /** Column name and the kind of value that fits it. */
  private static final Map<String, String> COLUMNS = new LinkedHashMap<>();

  static {
    COLUMNS.put("i8", "Int8");
    COLUMNS.put("u32", "UInt32");
    COLUMNS.put("i64", "Int64 DEFAULT 0");
    COLUMNS.put("u256", "UInt256 DEFAULT 0");
    COLUMNS.put("f32", "Float32 DEFAULT 0");
    COLUMNS.put("f64", "Float64");
    COLUMNS.put("dec", "Decimal(9, 3) DEFAULT 0");
    COLUMNS.put("b", "Bool DEFAULT false");
    COLUMNS.put("s", "String DEFAULT ''");
    COLUMNS.put("fs", "FixedString(4) DEFAULT ''");
    COLUMNS.put("d", "Date DEFAULT '1970-01-01'");
    COLUMNS.put("dt", "DateTime DEFAULT 0");
    COLUMNS.put("dt64", "DateTime64(3, 'UTC') DEFAULT 0");
    COLUMNS.put("u", "UUID DEFAULT '00000000-0000-0000-0000-000000000000'");
    COLUMNS.put("ip4", "IPv4 DEFAULT '0.0.0.0'");
    COLUMNS.put("ip6", "IPv6 DEFAULT '::'");
    COLUMNS.put("e", "Enum8('a' = 1, 'b' = 2) DEFAULT 'a'");
    COLUMNS.put("ns", "Nullable(String)");
    COLUMNS.put("lc", "LowCardinality(String) DEFAULT ''");
    COLUMNS.put("arr", "Array(Int32)");
    COLUMNS.put("m", "Map(String, UInt8)");
    COLUMNS.put("t", "Tuple(a Int32, b String) DEFAULT (0, '')");
  }

  private final TestDatabase database;

  PushFuzzIT(TestDatabase database) {
    this.database = database;
  }

  /** How a request was made, and what must happen to it. */
  private enum Shape {
    /** A well-formed wrapped push request: must be acknowledged. */
    WRAPPED,
    /** A well-formed unwrapped (no_wrapper + write_metadata) request: must be acknowledged. */
    UNWRAPPED,
    /** A wrapped request with bytes damaged: 204 or 400, never 5xx. */
    DAMAGED
  }

  private record Fuzzed(
      String id, Shape shape, byte[] body, Map<String, String> headers, int expectedRows) {}

  private static final class Generator {
    final Random random;

    Generator(long seed) {
      this.random = new Random(seed);
    }

    boolean chance(double p) {
      return random.nextDouble() < p;
    }

    <T> T pick(List<T> options) {
      return options.get(random.nextInt(options.size()));
    }

    String text(int maxLength) {
      int length = random.nextInt(maxLength + 1);
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < length; i++) {
        switch (random.nextInt(8)) {
          case 0 -> text.append((char) random.nextInt(32)); // control characters
          case 1 -> text.appendCodePoint(0x1F600 + random.nextInt(80)); // emoji
          case 2 -> text.append(pick(List.of("'", "\"", "\\", "`", ";", "{", "}", "%", "\u00e9")));
          case 3 -> text.appendCodePoint(0x4E00 + random.nextInt(500));
          default -> text.append((char) ('a' + random.nextInt(26)));
        }
      }
      return text.toString();
    }

    JsonNode anyValue(int depth) {
      int kind = random.nextInt(depth > 2 ? 6 : 8);
      return switch (kind) {
        case 0 -> NODES.nullNode();
        case 1 -> NODES.booleanNode(random.nextBoolean());
        case 2 -> NODES.numberNode(random.nextLong());
        case 3 -> NODES.numberNode(random.nextDouble() * Math.pow(10, random.nextInt(40) - 20));
        case 4 -> NODES.textNode(text(12));
        case 5 -> NODES.numberNode(new BigInteger(1 + random.nextInt(120), random));
        case 6 -> {
          ArrayNode array = NODES.arrayNode();
          for (int i = random.nextInt(4); i > 0; i--) {
            array.add(anyValue(depth + 1));
          }
          yield array;
        }
        default -> {
          ObjectNode object = NODES.objectNode();
          for (int i = random.nextInt(4); i > 0; i--) {
            object.set(text(5), anyValue(depth + 1));
          }
          yield object;
        }
      };
    }

    /** A value meant for the column: usually plausible, often at or beyond its edges. */
    JsonNode valueFor(String column) {
      if (chance(0.15)) {
        return anyValue(0);
      }
      return switch (column) {
        case "i8" ->
            NODES.numberNode(pick(List.of(-128, 127, 128, -129, 0, random.nextInt(256) - 128)));
        case "u32" ->
            chance(0.5)
                ? NODES.numberNode(random.nextInt(Integer.MAX_VALUE))
                : NODES.textNode(
                    pick(List.of("4294967295", "4294967296", "-1", "42", "4.0", "4.5", "1e3")));
        case "i64" ->
            NODES.textNode(
                pick(
                    List.of(
                        "9223372036854775807",
                        "9223372036854775808",
                        "-9223372036854775808",
                        "12",
                        "0x10",
                        "")));
        case "u256" -> NODES.numberNode(new BigInteger(1 + random.nextInt(260), random));
        case "f32", "f64" ->
            chance(0.5)
                ? NODES.numberNode(random.nextGaussian() * 1e6)
                : NODES.textNode(
                    pick(
                        List.of(
                            "NaN",
                            "Infinity",
                            "-Infinity",
                            "1e39",
                            "1e309",
                            "4.9e-324",
                            "-0",
                            "abc")));
        case "dec" ->
            NODES.textNode(
                pick(
                    List.of(
                        "123456.789",
                        "1234567.0",
                        "0.0005",
                        "-999999.999",
                        "1e2",
                        "12.3456789",
                        "NaN")));
        case "b" ->
            pick(
                List.of(
                    NODES.booleanNode(true),
                    NODES.numberNode(1),
                    NODES.numberNode(2),
                    NODES.textNode("true"),
                    NODES.textNode("yes")));
        case "s", "lc", "ns" -> chance(0.1) ? NODES.nullNode() : NODES.textNode(text(60));
        case "fs" -> NODES.textNode(text(6));
        case "d" ->
            NODES.textNode(
                pick(
                    List.of(
                        "2026-01-15",
                        "1969-12-31",
                        "2149-06-06",
                        "2149-06-07",
                        "2026-02-30",
                        "2026-1-5",
                        "20260115")));
        case "dt" ->
            chance(0.3)
                ? NODES.numberNode(random.nextLong() % 5_000_000_000L)
                : NODES.textNode(
                    pick(
                        List.of(
                            "2026-01-15T12:34:56Z",
                            "2026-01-15T12:34:56.789+05:30",
                            "2025-12-30 12:00:00",
                            "2106-02-07 06:28:16",
                            "1969-12-31 23:59:59",
                            "not a time")));
        case "dt64" ->
            NODES.textNode(
                pick(
                    List.of(
                        "2026-01-15T12:34:56.123456Z",
                        "2026-01-15 12:34:56.1",
                        "2299-12-31 23:59:59.999",
                        "2300-01-01 00:00:00",
                        "1900-01-01 00:00:00")));
        case "u" -> NODES.textNode(chance(0.7) ? UUID.randomUUID().toString() : text(36));
        case "ip4" ->
            NODES.textNode(
                pick(List.of("10.0.0.1", "255.255.255.255", "256.1.1.1", "1.2.3", "::1")));
        case "ip6" ->
            NODES.textNode(
                pick(List.of("::1", "2001:db8::1", "10.0.0.1", "gggg::1", "::ffff:1.2.3.4")));
        case "e" ->
            chance(0.5)
                ? NODES.textNode(pick(List.of("a", "b", "c", "A")))
                : NODES.numberNode(random.nextInt(4));
        case "arr" -> {
          ArrayNode array = NODES.arrayNode();
          for (int i = random.nextInt(5); i > 0; i--) {
            array.add(chance(0.9) ? NODES.numberNode(random.nextInt()) : anyValue(2));
          }
          yield array;
        }
        case "m" -> {
          ObjectNode map = NODES.objectNode();
          for (int i = random.nextInt(4); i > 0; i--) {
            map.set(text(4), chance(0.8) ? NODES.numberNode(random.nextInt(300)) : anyValue(2));
          }
          yield map;
        }
        case "t" ->
            chance(0.5)
                ? NODES.arrayNode().add(random.nextInt()).add(text(5))
                : NODES.objectNode().put("a", random.nextInt()).put("b", text(3));
        default -> anyValue(0);
      };
    }

    /** A value that fits the column. */
    JsonNode validFor(String column) {
      return switch (column) {
        case "i8" -> NODES.numberNode(random.nextInt(256) - 128);
        case "u32" -> NODES.numberNode(random.nextInt(Integer.MAX_VALUE));
        case "i64" -> NODES.textNode(Long.toString(random.nextLong()));
        case "u256" -> NODES.numberNode(new BigInteger(200, random));
        case "f32", "f64" -> NODES.numberNode(random.nextGaussian() * 1000);
        case "dec" -> NODES.textNode(random.nextInt(999_999) + "." + random.nextInt(1000));
        case "b" -> NODES.booleanNode(random.nextBoolean());
        case "s", "lc", "ns" -> NODES.textNode(text(30));
        case "fs" -> NODES.textNode("abcd".substring(random.nextInt(5)));
        case "d" -> NODES.textNode("2026-01-" + (10 + random.nextInt(19)));
        case "dt" -> NODES.textNode("2026-01-15T12:34:" + (10 + random.nextInt(50)) + "Z");
        case "dt64" -> NODES.textNode("2026-01-15 12:34:56." + random.nextInt(1000));
        case "u" -> NODES.textNode(UUID.randomUUID().toString());
        case "ip4" -> NODES.textNode("10.0." + random.nextInt(256) + "." + random.nextInt(256));
        case "ip6" -> NODES.textNode("2001:db8::" + Integer.toHexString(random.nextInt(65536)));
        case "e" -> NODES.textNode(random.nextBoolean() ? "a" : "b");
        case "arr" -> NODES.arrayNode().add(random.nextInt()).add(random.nextInt());
        case "m" -> NODES.objectNode().put(text(4), random.nextInt(256));
        case "t" -> NODES.arrayNode().add(random.nextInt()).add(text(5));
        default -> NODES.nullNode();
      };
    }

    /** Most rows fit, or all but a value or two; some are hostile throughout. */
    ObjectNode row() {
      ObjectNode row = NODES.objectNode();
      double hostility = pick(List.of(0.0, 0.0, 0.03, 0.1, 0.5));
      for (String column : COLUMNS.keySet()) {
        if (chance(0.95) || column.equals("i8") || column.equals("u32") || column.equals("f64")) {
          row.set(column, chance(hostility) ? valueFor(column) : validFor(column));
        }
      }
      for (int i = random.nextInt(3); i > 0; i--) {
        row.set("extra_" + text(4), anyValue(1));
      }
      return row;
    }

    /** The message data and how many rows (or row failures) it must leave behind. */
    record Data(byte[] bytes, int rows) {}

    Data data() {
      int kind = random.nextInt(10);
      if (kind < 7) {
        return new Data(row().toString().getBytes(StandardCharsets.UTF_8), 1);
      }
      if (kind < 9) {
        ArrayNode rows = NODES.arrayNode();
        int count = 1 + random.nextInt(4);
        boolean allObjects = true;
        for (int i = 0; i < count; i++) {
          if (chance(0.1)) {
            rows.add(anyValue(2));
            allObjects &= rows.get(i).isObject();
          } else {
            rows.add(row());
          }
        }
        return new Data(rows.toString().getBytes(StandardCharsets.UTF_8), allObjects ? count : 1);
      }
      byte[] junk = new byte[random.nextInt(40)];
      random.nextBytes(junk);
      return new Data(junk, 1);
    }

    Fuzzed message(int n) {
      String id = "f-" + n;
      Data data = data();
      double shape = random.nextDouble();
      if (shape < 0.12) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("x-goog-pubsub-message-id", id);
        headers.put("x-goog-pubsub-publish-time", "2026-01-15T12:00:00.5Z");
        headers.put("x-goog-pubsub-subscription-name", "projects/p/subscriptions/raw");
        if (chance(0.5)) {
          headers.put("x-goog-pubsub-ordering-key", "k" + random.nextInt(5));
        }
        for (int i = random.nextInt(3); i > 0; i--) {
          headers.put(
              "attr-" + (char) ('a' + random.nextInt(26)), Integer.toString(random.nextInt()));
        }
        return new Fuzzed(id, Shape.UNWRAPPED, data.bytes(), headers, data.rows());
      }
      ObjectNode message = NODES.objectNode();
      ObjectNode envelope = NODES.objectNode();
      if (chance(0.1)) {
        envelope.put("extra", text(8));
      }
      envelope.set("message", message);
      message.put(chance(0.2) ? "message_id" : "messageId", id);
      message.put("data", Base64.getEncoder().encodeToString(data.bytes()));
      if (chance(0.5)) {
        ObjectNode attributes = message.putObject("attributes");
        for (int i = random.nextInt(4); i > 0; i--) {
          attributes.put(text(6), text(10));
        }
      }
      if (chance(0.7)) {
        message.put(
            "publishTime",
            pick(List.of("2026-01-15T12:34:56.789Z", "2026-01-15T12:34:56Z", "bad time")));
      }
      if (chance(0.3)) {
        message.put("orderingKey", text(5));
      }
      if (chance(0.5)) {
        envelope.put("deliveryAttempt", 1 + random.nextInt(5));
      }
      envelope.put("subscription", "projects/p/subscriptions/" + text(4));
      byte[] body = envelope.toString().getBytes(StandardCharsets.UTF_8);
      if (shape < 0.27) {
        // The damage falls after the message id, so a damaged message keeps an id of its own.
        String text = new String(body, StandardCharsets.ISO_8859_1); // one char per byte
        body = damage(body, text.indexOf(id + "\"") + id.length() + 1);
        return new Fuzzed(id, Shape.DAMAGED, body, Map.of("Content-Type", "application/json"), 0);
      }
      return new Fuzzed(
          id, Shape.WRAPPED, body, Map.of("Content-Type", "application/json"), data.rows());
    }

    /** Damages {@code body} at or after byte {@code from}. */
    byte[] damage(byte[] body, int from) {
      byte[] damaged = body.clone();
      int span = damaged.length - from;
      switch (random.nextInt(4)) {
        case 0 -> {
          return java.util.Arrays.copyOf(damaged, from + random.nextInt(span));
        }
        case 1 -> damaged[from + random.nextInt(span)] = (byte) random.nextInt(256);
        case 2 -> {
          int at = from + random.nextInt(span);
          byte[] longer = new byte[damaged.length + 1];
          System.arraycopy(damaged, 0, longer, 0, at);
          longer[at] = (byte) (char) pick(List.of('{', '}', '"', '\\', ',', ':', '[', '\0'));
          System.arraycopy(damaged, at, longer, at + 1, damaged.length - at);
          return longer;
        }
        default -> {
          for (int i = 0; i < 3; i++) {
            damaged[from + random.nextInt(span)] = (byte) ('!' + random.nextInt(90));
          }
        }
      }
      return damaged;
    }
  }

  @Test
  void theHandlerNeverFailsByItselfAndNoAcknowledgedMessageIsLost() throws Exception {
    long seed = Long.getLong("fuzz.seed", 20_261_129L);
    int count = Integer.getInteger("fuzz.messages", 1000);
    StringBuilder columns = new StringBuilder();
    COLUMNS.forEach((name, type) -> columns.append(name).append(' ').append(type).append(", "));
    database.execute(
        "CREATE TABLE fuzz ("
            + columns
            + "_pubsub_message_id String, _pubsub_attributes Map(String, String),"
            + " _pubsub_publish_time DateTime64(3, 'UTC') DEFAULT 0,"
            + " _pubsub_ordering_key String, _pubsub_delivery_attempt UInt32)"
            + " ENGINE = MergeTree ORDER BY _pubsub_message_id");
    database.execute(
        "CREATE TABLE fuzz_errors (raw_message String, error_message String, stack_trace String,"
            + " failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");
    Generator generator = new Generator(seed);
    List<Fuzzed> messages = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      messages.add(generator.message(i));
    }
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    JsonLog.redirect(new PrintStream(log, true, StandardCharsets.UTF_8));
    Map<String, Integer> statuses = new HashMap<>();
    List<String> violations = new ArrayList<>();
    java.util.Set<String> acknowledged = new java.util.HashSet<>();
    long start = System.nanoTime();
    try (RunningService service =
        RunningService.start(
            database,
            "fuzz",
            // PUSH_AUTH=none: an unauthenticated service by intent, so that the only WARNING
            // lines are those the fuzzed messages cause.
            Map.of(
                "CLICKHOUSE_DEAD_LETTER_TABLE",
                "fuzz_errors",
                "BATCH_LINGER_MS",
                "20",
                "PUSH_AUTH",
                "none"))) {
      for (int from = 0; from < messages.size(); from += 16) {
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        List<Fuzzed> group = messages.subList(from, Math.min(messages.size(), from + 16));
        for (Fuzzed message : group) {
          HttpRequest.Builder request =
              HttpRequest.newBuilder(service.url())
                  .timeout(Duration.ofSeconds(60))
                  .POST(HttpRequest.BodyPublishers.ofByteArray(message.body()));
          message.headers().forEach(request::header);
          answers.add(HTTP.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (int i = 0; i < group.size(); i++) {
          Fuzzed message = group.get(i);
          int status = answers.get(i).get().statusCode();
          statuses.merge(message.shape() + " " + status, 1, Integer::sum);
          if (status == 204) {
            acknowledged.add(message.id());
          }
          boolean allowed =
              message.shape() == Shape.DAMAGED ? status == 204 || status == 400 : status == 204;
          if (!allowed) {
            violations.add(
                message.id()
                    + " "
                    + message.shape()
                    + " answered "
                    + status
                    + ": "
                    + new String(message.body(), StandardCharsets.UTF_8));
          }
        }
      }
    } finally {
      JsonLog.redirect(System.out);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, Long> stored = counts("SELECT _pubsub_message_id, count() FROM fuzz GROUP BY 1");
    Map<String, Long> failed =
        counts(
            "SELECT extract(stack_trace, '^messageId=(\\\\S+) '), count() FROM fuzz_errors GROUP BY 1");
    for (Fuzzed message : messages) {
      long rows = stored.getOrDefault(message.id(), 0L);
      long errors = failed.getOrDefault(message.id(), 0L);
      if (message.shape() == Shape.DAMAGED) {
        // What the damage left of the data is unknown; acknowledged, it must be somewhere.
        if (acknowledged.contains(message.id()) && rows + errors == 0) {
          violations.add(
              message.id()
                  + ": acknowledged (damaged) and in neither table: "
                  + new String(message.body(), StandardCharsets.UTF_8));
        }
        continue;
      }
      boolean whole = rows == message.expectedRows() && errors == 0;
      boolean deadLettered = rows == 0 && errors == 1;
      if (!whole && !deadLettered) {
        violations.add(
            message.id()
                + ": "
                + rows
                + " rows and "
                + errors
                + " dead-letter rows; expected "
                + message.expectedRows()
                + " rows, or none and one dead letter: "
                + new String(message.body(), StandardCharsets.UTF_8)
                + "; error rows: "
                + database.query(
                    "SELECT raw_message, error_message FROM fuzz_errors WHERE stack_trace LIKE"
                        + " 'messageId="
                        + message.id()
                        + " %'"));
      }
    }
    String summary =
        String.format(
            java.util.Locale.ROOT,
            "seed=%d messages=%d seconds=%.1f statuses=%s stored-rows=%d error-rows=%d",
            seed,
            count,
            seconds,
            new java.util.TreeMap<>(statuses),
            stored.values().stream().mapToLong(Long::longValue).sum(),
            failed.values().stream().mapToLong(Long::longValue).sum());
    System.out.println("RESULT fuzz: " + summary);
    Path results = Path.of(System.getProperty("reliability.results", "target/reliability-results"));
    Files.createDirectories(results);
    Files.writeString(
        results.resolve("fuzz.tsv"),
        java.time.Instant.now() + "\t" + summary + "\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    log.toString(StandardCharsets.UTF_8)
        .lines()
        .filter(line -> line.contains("\"ERROR\"") || line.contains("\"WARNING\""))
        // Each message that cannot be written has its line (RefusalLog); the fuzz sends many.
        .filter(line -> !line.contains("\"message\":\"a message cannot be written\""))
        .limit(20)
        .forEach(line -> violations.add("log: " + line));
    assertThat(violations).as("seed %d", seed).isEmpty();
    assertThat(log.toString(StandardCharsets.UTF_8))
        .as("seed %d: the handler's catch-all", seed)
        .doesNotContain("request failed unexpectedly");
    assertThat(statuses.keySet()).as("the fuzz reached both sinks").isNotEmpty();
    assertThat(stored).isNotEmpty();
    assertThat(failed).isNotEmpty();
  }

  private Map<String, Long> counts(String sql) {
    Map<String, Long> counts = new HashMap<>();
    for (String line : database.query(sql).lines().toList()) {
      int tab = line.lastIndexOf('\t');
      counts.put(line.substring(0, tab), Long.parseLong(line.substring(tab + 1)));
    }
    return counts;
  }
}
