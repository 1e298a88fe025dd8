package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.IntegrationFixtures.concurrently;
import static dev.pubsubclickhouse.function.IntegrationFixtures.createDeadLetterTable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.function.envelope.NotAPushRequestException;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import jdk.jfr.Event;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

/** The push service against a real ClickHouse: what each kind of message ends as. */
@ClickHouseTest
class PushFunctionIT {
  private static final String SEED =
      "{\"event_time\":\"2025-12-30 12:00:00\",\"service\":\"api\",\"level\":\"INFO\",\"message\":\"PRE-DATAFLOW TEST\"}";
  private static final String LOGS =
      "(event_time DateTime, service String, level String, message String,"
          + " _pubsub_message_id String) ENGINE = MergeTree ORDER BY event_time";

  private final TestDatabase database;

  PushFunctionIT(TestDatabase database) {
    this.database = database;
  }

  private void createTables(String name) {
    database.execute("CREATE TABLE " + name + " " + LOGS);
    createDeadLetterTable(database, name + "_errors");
  }

  private RunningService serviceFor(String name) throws Exception {
    return RunningService.start(
        database, name, Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", name + "_errors"));
  }

  private static String event(int i) {
    return "{\"event_time\":\"2026-01-15 12:00:00\",\"service\":\"api\",\"level\":\"INFO\",\"message\":\"event "
        + i
        + "\"}";
  }

  @Test
  void theSeedMessageLandsAsSent() throws Exception {
    createTables("seed");
    try (RunningService service = serviceFor("seed")) {
      assertThat(service.push("m-1", SEED)).isEqualTo(204);
    }
    assertThat(database.query("SELECT * FROM seed"))
        .isEqualTo("2025-12-30 12:00:00\tapi\tINFO\tPRE-DATAFLOW TEST\tm-1");
  }

  @Test
  void aColumnAddedByHandWhileTheServiceRunsIsWrittenOnceAMessageBringsItsField() throws Exception {
    createTables("grown");
    try (RunningService service = serviceFor("grown")) {
      // An INSERT naming the columns read at start still succeeds, so no refusal would show it.
      database.execute("ALTER TABLE grown ADD COLUMN region Nullable(String)");
      for (String[] message : new String[][] {{"first", "eu"}, {"second", "us"}}) {
        String data =
            "{\"event_time\":\"2026-01-15 12:00:00\",\"service\":\"api\",\"level\":\"INFO\","
                + "\"message\":\""
                + message[0]
                + "\",\"region\":\""
                + message[1]
                + "\"}";
        assertThat(service.push("g-" + message[0], data)).isEqualTo(204);
      }
    }
    assertThat(database.query("SELECT message, region FROM grown ORDER BY message"))
        .isEqualTo("first\teu\nsecond\tus");
  }

  @Test
  void twoHundredConcurrentPushesShareAFewInserts() throws Exception {
    createTables("concurrent");
    List<Callable<Integer>> requests = new ArrayList<>();
    try (RunningService service = serviceFor("concurrent")) {
      // Pub/Sub keeps its connections open; so does this test, by opening them first.
      List<Callable<Integer>> connect = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        connect.add(() -> service.get("/healthz").statusCode());
      }
      assertThat(concurrently(connect)).containsOnly(200);
      for (int i = 0; i < 200; i++) {
        int n = i;
        requests.add(() -> service.push("c-" + n, event(n)));
      }
      assertThat(concurrently(requests)).hasSize(200).containsOnly(204);
    }
    assertThat(database.query("SELECT count(), uniqExact(_pubsub_message_id) FROM concurrent"))
        .isEqualTo("200\t200");
    database.flushLogs();
    long inserts =
        Long.parseLong(
            database.query(
                "SELECT count() FROM system.query_log WHERE type = 'QueryFinish' AND query_kind = 'Insert'"
                    + " AND current_database = '"
                    + database.name()
                    + "' AND query LIKE '%`concurrent`%'"));
    // Typically 6 to 12 INSERTs in all on a quiet machine; the bound (at least five messages per
    // INSERT on average) leaves room for a loaded CI machine, where arrivals spread out.
    assertThat(inserts).isBetween(1L, 40L);
  }

  @Test
  void badMessagesGoToTheDeadLetterTableWhileGoodOnesInTheSameBatchAreInserted() throws Exception {
    createTables("mixed");
    byte[] invalidUtf8 = {(byte) 0xC3, (byte) 0x28, '{', '}'};
    try (RunningService service = serviceFor("mixed")) {
      List<Callable<Integer>> requests = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        int n = i;
        requests.add(() -> service.push("good-" + n, event(n)));
      }
      requests.add(() -> service.push("not-json", "this is not json"));
      requests.add(
          () ->
              service.push(
                  "wrong-type",
                  "{\"event_time\":\"2026-13-45 00:00:00\",\"service\":\"api\",\"level\":\"INFO\",\"message\":\"x\"}"));
      requests.add(
          () ->
              service.push(
                  "missing-column",
                  "{\"event_time\":\"2026-01-15 12:00:00\",\"service\":\"api\",\"level\":\"INFO\"}"));
      requests.add(() -> service.push("bad-utf8", invalidUtf8, Map.of()));
      assertThat(concurrently(requests)).containsOnly(204);
    }
    assertThat(database.count("mixed")).isEqualTo(20);
    assertThat(
            database.query(
                "SELECT raw_message, error_message FROM mixed_errors ORDER BY raw_message"))
        .isEqualTo(
            "this is not json\tpayload is not valid JSON: Unrecognized token \\'this\\': was expecting (JSON String, Number, Array, Object or token \\'null\\', \\'true\\' or \\'false\\')\n"
                + "wyh7fQ==\tpayload is not UTF-8: byte 0 (0xC3) does not begin a valid sequence\n"
                + "{\"event_time\":\"2026-01-15 12:00:00\",\"service\":\"api\",\"level\":\"INFO\"}\tcolumn \\'message\\' (String) rejects (missing): a value is required (no DEFAULT, not Nullable)\n"
                + "{\"event_time\":\"2026-13-45 00:00:00\",\"service\":\"api\",\"level\":\"INFO\",\"message\":\"x\"}\tcolumn \\'event_time\\' (DateTime) rejects \"2026-13-45 00:00:00\": no such date");
    assertThat(
            database.query(
                "SELECT stack_trace FROM mixed_errors WHERE raw_message = 'this is not json'"))
        .isEqualTo(
            "messageId=not-json publishTime=2026-01-15T12:34:56.789Z subscription=projects/test/subscriptions/push deliveryAttempt=1");
  }

  @Test
  void rowsClickHouseRefusesAreFoundBySplittingTheBatch() throws Exception {
    database.execute(
        "CREATE TABLE checked (n UInt32, _pubsub_message_id String, CONSTRAINT small CHECK n < 100)"
            + " ENGINE = MergeTree ORDER BY n");
    createDeadLetterTable(database, "checked_errors");
    try (RunningService service =
        RunningService.start(
            database,
            "checked",
            Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", "checked_errors", "BATCH_LINGER_MS", "200"))) {
      List<Callable<Integer>> requests = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        int n = i == 7 ? 700 : i == 19 ? 1900 : i;
        requests.add(() -> service.push("k-" + n, "{\"n\":" + n + "}"));
      }
      assertThat(concurrently(requests)).containsOnly(204);
    }
    assertThat(database.query("SELECT count(), countIf(n >= 100) FROM checked")).isEqualTo("28\t0");
    assertThat(database.query("SELECT raw_message FROM checked_errors ORDER BY raw_message"))
        .isEqualTo("{\"n\":1900}\n{\"n\":700}");
    assertThat(database.query("SELECT DISTINCT error_message FROM checked_errors"))
        .startsWith("ClickHouse refused it: Code: 469. DB::Exception: Constraint `small`")
        .contains("VIOLATED_CONSTRAINT");
  }

  @Test
  void anArrayPayloadIsSeveralRowsOfOneMessageWrittenWholeOrNotAtAll() throws Exception {
    createTables("arrays");
    String bad = "[" + event(3) + "," + event(4) + ",{\"event_time\":5}]";
    try (RunningService service = serviceFor("arrays")) {
      assertThat(service.push("a-1", "[" + event(1) + "," + event(2) + "]")).isEqualTo(204);
      assertThat(service.push("a-2", bad)).isEqualTo(204);
    }
    assertThat(database.query("SELECT message, _pubsub_message_id FROM arrays ORDER BY message"))
        .isEqualTo("event 1\ta-1\nevent 2\ta-1");
    assertThat(database.query("SELECT raw_message, error_message FROM arrays_errors"))
        .isEqualTo(
            bad
                + "\trow 2: column \\'service\\' (String) rejects (missing): a value is required"
                + " (no DEFAULT, not Nullable)");
  }

  @Test
  void compressedDataIsDecompressedAndABombIsRefused() throws Exception {
    createTables("compressed");
    try (RunningService service =
        RunningService.start(
            database,
            "compressed",
            Map.of(
                "CLICKHOUSE_DEAD_LETTER_TABLE",
                "compressed_errors",
                "MAX_DECOMPRESSED_BYTES",
                "65536"))) {
      assertThat(service.push("gz", gzip(event(1).getBytes(StandardCharsets.UTF_8)), Map.of()))
          .isEqualTo(204);
      assertThat(
              service.push(
                  "zst",
                  com.github.luben.zstd.Zstd.compress(event(2).getBytes(StandardCharsets.UTF_8)),
                  Map.of()))
          .isEqualTo(204);
      assertThat(service.push("bomb", gzip(new byte[10_000_000]), Map.of())).isEqualTo(204);
    }
    assertThat(database.query("SELECT message FROM compressed ORDER BY message"))
        .isEqualTo("event 1\nevent 2");
    assertThat(database.query("SELECT error_message FROM compressed_errors"))
        .isEqualTo("gzip data expands beyond 65536 bytes");
  }

  @Test
  void withoutAnErrorSinkABadMessageIsLeftToPubSubWhole() throws Exception {
    createTables("no_sink");
    try (RunningService service = RunningService.start(database, "no_sink", Map.of())) {
      assertThat(service.push("bad", "[" + event(1) + ",\"not an object\"]")).isEqualTo(422);
      assertThat(service.push("good", event(2))).isEqualTo(204);
    }
    assertThat(database.query("SELECT message FROM no_sink")).isEqualTo("event 2");
  }

  @Test
  void theDeadLetterTableDroppedMidRunMeansNoAcknowledgement() throws Exception {
    createTables("dropped");
    try (RunningService service = serviceFor("dropped")) {
      assertThat(service.push("bad-1", "nope")).isEqualTo(204);
      database.execute("DROP TABLE dropped_errors");
      assertThat(service.push("bad-2", "nope")).isEqualTo(503);
      assertThat(service.push("good", event(1))).isEqualTo(204);
    }
    assertThat(database.count("dropped")).isEqualTo(1);
  }

  @Test
  void metadataColumnsAreFilledFromWrappedAndUnwrappedRequests() throws Exception {
    database.execute(
        "CREATE TABLE meta (message String, _pubsub_message_id String, _pubsub_publish_time DateTime64(3, 'UTC'),"
            + " _pubsub_attributes Map(String, String), _pubsub_ordering_key String, _pubsub_subscription String,"
            + " _pubsub_delivery_attempt UInt32, _ingested_at DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY message");
    try (RunningService service = RunningService.start(database, "meta", Map.of())) {
      assertThat(
              service.push(
                  "w-1",
                  "{\"message\":\"wrapped\"}".getBytes(StandardCharsets.UTF_8),
                  Map.of("source", "test")))
          .isEqualTo(204);
      assertThat(
              service
                  .post(
                      "{\"message\":\"unwrapped\"}".getBytes(StandardCharsets.UTF_8),
                      Map.of(
                          "x-goog-pubsub-message-id", "u-1",
                          "x-goog-pubsub-publish-time", "2026-01-15T12:00:00.5Z",
                          "x-goog-pubsub-subscription-name", "projects/test/subscriptions/raw",
                          "x-goog-pubsub-ordering-key", "key-9",
                          "region", "eu"))
                  .statusCode())
          .isEqualTo(204);
    }
    assertThat(
            database.query(
                "SELECT message, _pubsub_message_id, _pubsub_publish_time, _pubsub_attributes, _pubsub_ordering_key,"
                    + " _pubsub_subscription, _pubsub_delivery_attempt, _ingested_at > now64(3) - 60 FROM meta ORDER BY message"))
        .isEqualTo(
            "unwrapped\tu-1\t2026-01-15 12:00:00.500\t{'region':'eu'}\tkey-9\tprojects/test/subscriptions/raw\t0\t1\n"
                + "wrapped\tw-1\t2026-01-15 12:34:56.789\t{'source':'test'}\t\tprojects/test/subscriptions/push\t1\t1");
  }

  /**
   * Credentials that an unwrapped push carried in headers used to be stored as attributes of its
   * dead-letter row. Java's HTTP client refuses to send some headers (Via, From); the parser's test
   * covers every name.
   */
  @Test
  void anUnwrappedPushsCredentialsReachNoDeadLetterRow() throws Exception {
    database.execute("CREATE TABLE creds " + LOGS);
    try (RunningService service =
        RunningService.start(
            database,
            "creds",
            Map.of(
                "CLICKHOUSE_DEAD_LETTER_TABLE",
                "creds_errors",
                "CREATE_DEAD_LETTER_TABLE",
                "true"))) {
      assertThat(
              service
                  .post(
                      "not json".getBytes(StandardCharsets.UTF_8),
                      Map.of(
                          "x-goog-pubsub-message-id", "c-1",
                          "x-goog-pubsub-subscription-name", "projects/test/subscriptions/raw",
                          "X-Serverless-Authorization", "Bearer run-token",
                          "Cookie", "session=abc",
                          "Proxy-Authorization", "Basic cHJveHk6cHc=",
                          "X-Goog-IAP-JWT-Assertion", "iap.jwt.sig",
                          "X-Goog-Authenticated-User-Email", "accounts.google.com:a@b.example",
                          "X-Forwarded-Authorization", "Bearer original",
                          "X-Appengine-User-IP", "203.0.113.7",
                          "region", "eu"))
                  .statusCode())
          .isEqualTo(204);
    }
    assertThat(database.query("SELECT message_id, attributes FROM creds_errors"))
        .isEqualTo("c-1\t{'region':'eu'}");
  }

  @Test
  void theRowIndexIsEachRowsPlaceInItsMessage() throws Exception {
    database.execute(
        "CREATE TABLE indexed (message String, _pubsub_message_id String, _pubsub_row_index UInt32)"
            + " ENGINE = MergeTree ORDER BY (_pubsub_message_id, _pubsub_row_index)");
    try (RunningService service = RunningService.start(database, "indexed", Map.of())) {
      assertThat(
              service.push(
                  "three", "[{\"message\":\"a\"},{\"message\":\"b\"},{\"message\":\"c\"}]"))
          .isEqualTo(204);
      assertThat(service.push("one", "{\"message\":\"d\"}")).isEqualTo(204);
    }
    assertThat(
            database.query(
                "SELECT _pubsub_message_id, _pubsub_row_index, message FROM indexed"
                    + " ORDER BY _pubsub_message_id, _pubsub_row_index"))
        .isEqualTo("one\t0\td\nthree\t0\ta\nthree\t1\tb\nthree\t2\tc");
  }

  @Test
  void schemaChangesNeedNoRestart() throws Exception {
    database.execute("CREATE TABLE evolving (a UInt32, b String) ENGINE = MergeTree ORDER BY a");
    try (RunningService service = RunningService.start(database, "evolving", Map.of())) {
      assertThat(service.push("1", "{\"a\":1,\"b\":\"x\",\"c\":10}")).isEqualTo(204);
      database.execute("ALTER TABLE evolving ADD COLUMN c UInt32");
      database.execute("ALTER TABLE evolving DROP COLUMN b");
      assertThat(service.push("2", "{\"a\":2,\"b\":\"y\",\"c\":20}")).isEqualTo(204);
      database.execute("ALTER TABLE evolving MODIFY COLUMN c String");
      assertThat(service.push("3", "{\"a\":3,\"c\":\"thirty\"}")).isEqualTo(204);
    }
    assertThat(database.query("SELECT a, c FROM evolving ORDER BY a"))
        .isEqualTo("1\t\n2\t20\n3\tthirty");
  }

  @Test
  void theHttpEdgeAnswersEveryOtherRequestExplicitly() throws Exception {
    createTables("edge");
    try (RunningService service =
        RunningService.start(database, "edge", Map.of("MAX_REQUEST_BYTES", "2048"))) {
      assertThat(
              service
                  .post("{\"no\":\"message\"}".getBytes(StandardCharsets.UTF_8), Map.of())
                  .statusCode())
          .isEqualTo(400);
      assertThat(
              service
                  .post(
                      "{\"message\":{\"data\":\"***\"}}".getBytes(StandardCharsets.UTF_8), Map.of())
                  .statusCode())
          .isEqualTo(400);
      assertThat(service.post(new byte[0], Map.of()).statusCode()).isEqualTo(400);
      assertThat(service.post(new byte[4096], Map.of()).statusCode()).isEqualTo(413);
      assertThat(service.get("/").statusCode()).isEqualTo(405);
      assertThat(service.get("/nowhere").statusCode()).isEqualTo(404);
      assertThat(service.get("/healthz").statusCode()).isEqualTo(200);
      assertThat(service.push("m", event(1))).isEqualTo(204);
      String metrics = service.get("/metrics").body();
      assertThat(metrics)
          .contains("pubsub_clickhouse_messages_received_total 1.0\n")
          .contains("pubsub_clickhouse_rows_parsed_ok_total 1.0\n")
          .contains("pubsub_clickhouse_inserts_total 1.0\n")
          .contains("pubsub_clickhouse_bad_requests_total 3.0\n")
          .contains("# TYPE pubsub_clickhouse_insert_latency_ms histogram");
    }
  }

  /**
   * The framework closes every answer after the function returns; an answer the function closed too
   * makes the framework build an exception for every request (Functions Framework 2.0.0), 4% of the
   * service's CPU at c=256. JFR sees every exception constructed in this JVM meanwhile.
   */
  @Test
  void noAnswerIsClosedTwice() throws Exception {
    createTables("closed_once");
    List<String> closingExceptions = new CopyOnWriteArrayList<>();
    AtomicInteger refusedEnvelopes = new AtomicInteger();
    CountDownLatch answersSentSeen = new CountDownLatch(1);
    try (RunningService service = serviceFor("closed_once");
        RecordingStream exceptions = new RecordingStream()) {
      exceptions.enable("jdk.JavaExceptionThrow").withStackTrace();
      exceptions.enable(AnswersSent.class);
      exceptions.onEvent(
          "jdk.JavaExceptionThrow",
          event -> {
            String thrown = event.getClass("thrownClass").getName();
            if (thrown.equals(NotAPushRequestException.class.getName())) {
              refusedEnvelopes.incrementAndGet();
            }
            if (event.getStackTrace() != null
                && isException(thrown)
                && event.getStackTrace().getFrames().stream()
                    .anyMatch(PushFunctionIT::frameworkClosingTheAnswer)) {
              closingExceptions.add(thrown);
            }
          });
      exceptions.onEvent(AnswersSent.class.getName(), event -> answersSentSeen.countDown());
      exceptions.startAsync();
      for (int i = 0; i < 5; i++) {
        assertThat(service.push("once-" + i, event(i))).isEqualTo(204);
        assertThat(service.post(new byte[0], Map.of()).statusCode()).isEqualTo(400);
        assertThat(service.get("/metrics").statusCode()).isEqualTo(200);
        assertThat(service.get("/healthz").statusCode()).isEqualTo(200);
      }
      // Events reach the stream in the order they happened: once this one has, so has every
      // exception built while the answers were sent.
      new AnswersSent().commit();
      assertThat(answersSentSeen.await(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(refusedEnvelopes.get()).as("exceptions recorded at all").isGreaterThanOrEqualTo(5);
    assertThat(closingExceptions).isEmpty();
    assertThat(database.query("SELECT count() FROM closed_once")).isEqualTo("5");
  }

  /** A mark in the JFR stream after the last answer. */
  static final class AnswersSent extends Event {}

  @Test
  void aRequestIsInProgressUntilItIsAnswered() throws Exception {
    createTables("in_progress");
    try (RunningService service =
        RunningService.start(
            database,
            "in_progress",
            Map.of("BATCH_LINGER_MS", "2000", "BATCH_MAX_WAIT_MS", "2000"))) {
      CompletableFuture<Integer> answer =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return service.push("waiting", event(1));
                } catch (Exception e) {
                  throw new CompletionException(e);
                }
              });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (service.service.requestsInProgress() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      Thread.sleep(200); // counted once: by the server alone, not by the function as well
      assertThat(service.service.requestsInProgress()).isEqualTo(1);
      assertThat(answer).isNotDone(); // waiting for its batch (2 s linger)
      assertThat(answer.get(30, TimeUnit.SECONDS)).isEqualTo(204);
      while (service.service.requestsInProgress() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(service.service.requestsInProgress()).isZero();
    }
    assertThat(database.query("SELECT count() FROM in_progress")).isEqualTo("1");
  }

  private static boolean isException(String className) {
    try {
      return Exception.class.isAssignableFrom(
          Class.forName(className, false, PushFunctionIT.class.getClassLoader()));
    } catch (ClassNotFoundException e) {
      return true;
    }
  }

  private static boolean frameworkClosingTheAnswer(RecordedFrame frame) {
    return frame.getMethod().getName().equals("close")
        && frame
            .getMethod()
            .getType()
            .getName()
            .startsWith("com.google.cloud.functions.invoker.http.HttpResponseImpl");
  }

  private static byte[] gzip(byte[] data) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
      gzip.write(data);
    }
    return out.toByteArray();
  }
}
