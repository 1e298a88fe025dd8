package dev.pubsubclickhouse.function.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.core.insert.ClickHouseHttp;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertFormat;
import dev.pubsubclickhouse.core.insert.InsertOptions;
import dev.pubsubclickhouse.core.insert.WaitedFor;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.DeadLetterSink;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.core.write.WriteEvents;
import dev.pubsubclickhouse.messages.MessageEncoder;
import dev.pubsubclickhouse.messages.MessageEvents;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.payload.PayloadDecompressor;
import dev.pubsubclickhouse.messages.payload.PayloadFormats;
import dev.pubsubclickhouse.messages.tables.Destination;
import dev.pubsubclickhouse.messages.tables.Route;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The batch writer against a ClickHouse that takes every INSERT (MockWebServer: what is checked is
 * which INSERTs are sent, not what ClickHouse does with them).
 */
class BatchWriterTest {
  /** Makes the dead letters of these tests' messages (they are encoded already). */
  private static final MessageEncoder DEAD_LETTERS_ONLY =
      new MessageEncoder(
          new PayloadDecompressor(1 << 20),
          new PayloadFormats(null),
          null,
          null,
          MessageEvents.NONE,
          Clock.systemUTC());

  private final MockWebServer server = new MockWebServer();
  private ClickHouseInserter inserter;
  private ClickHouseConfig config;

  @BeforeEach
  void start() throws Exception {
    server.start();
    config =
        ClickHouseConfig.read(
            new ConfigReader(
                Map.of(
                    "CLICKHOUSE_URL", "http://127.0.0.1:" + server.getPort(),
                    "CLICKHOUSE_DATABASE", "db",
                    "CLICKHOUSE_TABLE", "a")),
            new SecretManagerAccess(Map.of()));
    inserter =
        new ClickHouseInserter(
            ClickHouseHttp.open(config, "batch-writer-test"),
            InsertFormat.TYPED,
            config.insertOptions());
  }

  @AfterEach
  void stop() throws Exception {
    server.shutdown();
  }

  /**
   * Tables are written one after another: a request of a later table that its deadline answered 503
   * meanwhile must not be written, or Pub/Sub's redelivery of it would be written again.
   */
  @Test
  void aRequestAnsweredBeforeItsTableIsWrittenIsNotWritten() throws Exception {
    Destination a = destination("a");
    Destination b = destination("b");
    PendingMessage first = pending("m-1", a);
    PendingMessage late = pending("m-2", b);
    server.enqueue(written(1));
    late.answer().complete(PushOutcome.UNAVAILABLE); // as AnswerDeadlines does

    new BatchWriter().accept(List.of(first, late));

    assertThat(first.answer()).isCompletedWithValue(PushOutcome.STORED);
    assertThat(late.answer()).isCompletedWithValue(PushOutcome.UNAVAILABLE);
    assertThat(server.getRequestCount()).isOne();
    RecordedRequest insert = server.takeRequest();
    assertThat(insert.getRequestUrl().queryParameter("query")).contains("`a`");
  }

  /**
   * A message whose deadline passed (the sweep answers it 503 within 100 ms) is not sent once a
   * refused INSERT is split; the other half, whose request still waits, is.
   */
  @Test
  void aHalfPastItsDeadlineIsLeftAndTheOtherHalfOfASplitIsStillWritten() throws Exception {
    Destination a = destination("a");
    PendingMessage overdue = pending("m-1", a);
    PendingMessage waiting = pending("m-2", a);
    overdue.answerBy(System.nanoTime()); // not yet answered: the sweep has not run
    server.enqueue(new MockResponse().setResponseCode(413)); // both: too large, split them
    server.enqueue(written(1));

    new BatchWriter().accept(List.of(overdue, waiting));

    assertThat(overdue.answer()).isCompletedWithValue(PushOutcome.UNAVAILABLE);
    assertThat(waiting.answer()).isCompletedWithValue(PushOutcome.STORED);
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(server.takeRequest().getBodySize())
        .isGreaterThan(server.takeRequest().getBodySize());
  }

  /**
   * Messages m-1 and m-2 for table a, whose inserter backs off 3 seconds, to be answered within
   * these milliseconds from now; their first INSERT is answered as too large, so that they are
   * split in two.
   */
  private List<PendingMessage> splitInTwo(long firstWithinMillis, long secondWithinMillis) {
    Destination a = destination("a", backingOff3Seconds());
    PendingMessage first = pending("m-1", a);
    PendingMessage second = pending("m-2", a);
    first.answerBy(System.nanoTime() + Duration.ofMillis(firstWithinMillis).toNanos());
    second.answerBy(System.nanoTime() + Duration.ofMillis(secondWithinMillis).toNanos());
    server.enqueue(new MockResponse().setResponseCode(413));
    return List.of(first, second);
  }

  /**
   * An INSERT not sent because every deadline of its group passed costs the batch no time: the
   * other half of the split, whose request still waits, is sent at once (before: the inserter slept
   * its first backoff for the attempt it never made, and the waiting half missed its own deadline:
   * answered 503, never sent).
   */
  @Test
  void aHalfNotSentForItsDeadlineCostsTheOtherHalfNoTime() throws Exception {
    // The overdue one is not yet answered: the sweep has not run.
    List<PendingMessage> split = splitInTwo(0, 1500);
    PendingMessage overdue = split.get(0);
    PendingMessage waiting = split.get(1);
    server.enqueue(written(1));

    new BatchWriter().accept(split);

    assertThat(overdue.answer()).isCompletedWithValue(PushOutcome.UNAVAILABLE);
    assertThat(waiting.answer()).isCompletedWithValue(PushOutcome.STORED);
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  /**
   * An INSERT attempt cut at its deadline is not followed by a backoff either: nobody waits for its
   * rows any more, and the other half of the split still has time (before: the inserter slept its
   * backoff after the cut, and the other half missed its deadline).
   */
  @Test
  void anAttemptCutAtItsDeadlineCostsTheOtherHalfNoTime() throws Exception {
    List<PendingMessage> split = splitInTwo(1500, 3000);
    PendingMessage soon = split.get(0);
    PendingMessage later = split.get(1);
    server.enqueue(written(1).setHeadersDelay(5, TimeUnit.SECONDS));
    server.enqueue(written(1));

    new BatchWriter().accept(split);

    assertThat(soon.answer()).isCompletedWithValue(PushOutcome.UNAVAILABLE);
    assertThat(later.answer()).isCompletedWithValue(PushOutcome.STORED);
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  /**
   * A request answered 503 while its batch's INSERT ran (its deadline, or shutdown's expireAll)
   * gets no dead letter: Pub/Sub sends its message again, and that delivery is dead-lettered.
   */
  @Test
  void aRequestAnsweredWhileItsBatchIsWrittenGetsNoDeadLetter() throws Exception {
    List<DeadLetter> kept = new CopyOnWriteArrayList<>();
    Destination a = destination("a", inserter, recordingSink(kept));
    PendingMessage good = pending("m-1", a);
    PendingMessage bad = pending("m-2", a, EncodedRows.rejected("column 'id' rejects \"x\""));
    PendingMessage alsoBad = pending("m-3", a, EncodedRows.rejected("column 'id' rejects \"y\""));
    server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            bad.answer().complete(PushOutcome.UNAVAILABLE); // as AnswerDeadlines does meanwhile
            return written(1);
          }
        });

    new BatchWriter().accept(List.of(good, bad, alsoBad));

    assertThat(good.answer()).isCompletedWithValue(PushOutcome.STORED);
    assertThat(bad.answer()).isCompletedWithValue(PushOutcome.UNAVAILABLE);
    assertThat(alsoBad.answer()).isCompletedWithValue(PushOutcome.DEAD_LETTERED);
    assertThat(kept).extracting(DeadLetter::reason).containsExactly("column 'id' rejects \"y\"");
  }

  @Test
  void aTableWhoseWriterFailsUnexpectedlyIsAnswered503AndTheNextTableIsStillWritten()
      throws Exception {
    Destination broken = destination("a", null); // a bug: its writer throws
    Destination b = destination("b");
    PendingMessage first = pending("m-1", broken);
    PendingMessage second = pending("m-2", b);
    server.enqueue(written(1));

    new BatchWriter().accept(List.of(first, second));

    assertThat(first.answer()).isCompletedWithValue(PushOutcome.UNAVAILABLE);
    assertThat(second.answer()).isCompletedWithValue(PushOutcome.STORED);
    assertThat(server.takeRequest().getRequestUrl().queryParameter("query")).contains("`b`");
  }

  /** An inserter that waits 3 s between attempts: long beside the deadlines of these tests. */
  private ClickHouseInserter backingOff3Seconds() {
    return new ClickHouseInserter(
        ClickHouseHttp.open(config, "batch-writer-test"),
        InsertFormat.TYPED,
        InsertOptions.builder().backoff(Duration.ofMillis(3000), Duration.ofMillis(3000)).build());
  }

  private Destination destination(String table) {
    return destination(table, inserter);
  }

  private static Destination destination(String table, ClickHouseInserter inserter) {
    return destination(table, inserter, List.of());
  }

  private static Destination destination(
      String table, ClickHouseInserter inserter, List<DeadLetterSink> sinks) {
    TableName name = new TableName("db", table);
    TargetTable target =
        new TargetTable(name, t -> new TableSchema(t, List.of(ColumnDefinition.of("id", "UInt8"))));
    return new Destination(
        target, new TableWriter(target, inserter, sinks, WriteEvents.NONE, "pubsub"));
  }

  /** A dead-letter sink that keeps what it is given in {@code kept}. */
  private static List<DeadLetterSink> recordingSink(List<DeadLetter> kept) {
    return List.of(
        new DeadLetterSink() {
          @Override
          public void write(List<DeadLetter> deadLetters, WaitedFor waitedFor) {
            kept.addAll(deadLetters);
          }

          @Override
          public String name() {
            return "recording sink";
          }
        });
  }

  /** A message of one row (id = 7) routed to {@code destination}, encoded for its schema now. */
  private static PendingMessage pending(String id, Destination destination) {
    return pending(id, destination, EncodedRows.of(new byte[] {7}, 0, 1, 1));
  }

  private static PendingMessage pending(String id, Destination destination, EncodedRows rows) {
    PubSubMessage message =
        PubSubMessage.builder()
            .data("{\"id\":7}".getBytes())
            .messageId(id)
            .subscription("projects/p/subscriptions/s")
            .build();
    return new PendingMessage(
        message,
        DEAD_LETTERS_ONLY,
        Route.to(destination),
        null,
        destination.table().current(),
        rows);
  }

  private static MockResponse written(int rows) {
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("X-ClickHouse-Summary", "{\"written_rows\":\"" + rows + "\"}");
  }
}
