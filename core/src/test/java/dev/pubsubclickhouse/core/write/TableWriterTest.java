package dev.pubsubclickhouse.core.write;

import static dev.pubsubclickhouse.core.write.ScriptedClickHouse.error;
import static dev.pubsubclickhouse.core.write.WriteOutcome.DEAD_LETTERED;
import static dev.pubsubclickhouse.core.write.WriteOutcome.REFUSED;
import static dev.pubsubclickhouse.core.write.WriteOutcome.RETRY;
import static dev.pubsubclickhouse.core.write.WriteOutcome.WRITTEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import dev.pubsubclickhouse.core.insert.ClickHouseHttp;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertException;
import dev.pubsubclickhouse.core.insert.InsertFormat;
import dev.pubsubclickhouse.core.insert.InsertOptions;
import dev.pubsubclickhouse.core.insert.WaitedFor;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.SchemaSource;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import okhttp3.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shared writer against a scripted ClickHouse: each insert outcome (stored, refused by one row,
 * transient, not the rows' fault, a failed view, a changed schema) with and without splitting, with
 * each dead-letter sink outcome, and the answer every record gets. Rows are {@code {"id": n}}
 * encoded by the real encoder for a one-column table.
 */
class TableWriterTest {
  private static final TableName TABLE = new TableName("db", "t");

  private final MockWebServer server = new MockWebServer();
  private final Schemas schemas = new Schemas("UInt32");
  private final ScriptedClickHouse clickHouse = new ScriptedClickHouse(() -> schemas.idType);
  private final Events events = new Events();
  private ClickHouseInserter inserter;

  @BeforeEach
  void start() throws Exception {
    server.setDispatcher(clickHouse);
    server.start();
    inserter =
        inserter(
            InsertFormat.TYPED,
            config().insertOptions().toBuilder()
                .maxRetries(2)
                .backoff(Duration.ofMillis(1), Duration.ofMillis(2))
                .timeout(Duration.ofSeconds(5))
                .build());
  }

  /** The configuration of table db.t on the scripted server. */
  private ClickHouseConfig config() {
    return ClickHouseConfig.read(
        new ConfigReader(
            Map.of(
                "CLICKHOUSE_URL", "http://127.0.0.1:" + server.getPort(),
                "CLICKHOUSE_DATABASE", "db",
                "CLICKHOUSE_TABLE", "t")),
        new SecretManagerAccess(Map.of()));
  }

  private ClickHouseInserter inserter(InsertFormat format, InsertOptions options) {
    return new ClickHouseInserter(ClickHouseHttp.open(config(), "writer-test"), format, options);
  }

  @AfterEach
  void stop() throws Exception {
    server.shutdown();
  }

  /** The table's one column, whose type a test may change; or unreadable, as in an outage. */
  private static final class Schemas implements SchemaSource {
    volatile String idType;
    volatile String engine = "MergeTree";
    volatile boolean unreadable;
    final AtomicInteger reads = new AtomicInteger();

    Schemas(String idType) {
      this.idType = idType;
    }

    @Override
    public TableSchema read(TableName table) {
      reads.incrementAndGet();
      if (unreadable) {
        throw new IllegalStateException("ClickHouse does not answer");
      }
      return new TableSchema(table, List.of(ColumnDefinition.of("id", idType)), engine);
    }
  }

  /** What the writer reported. */
  private static final class Events implements WriteEvents {
    final List<String> seen = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void schemaChanged() {
      seen.add("schema changed");
    }

    @Override
    public void viewFailed(List<String> identities, InsertException failure) {
      seen.add("view failed for " + identities);
    }

    @Override
    public void notWritten(int records, Exception cause) {
      seen.add("not written: " + records);
    }

    @Override
    public void viewFailedAndNothingKept(int records, String engine, InsertException failure) {
      seen.add("view failed, " + engine + " keeps nothing: " + records);
    }
  }

  /** A dead-letter sink in memory that can be made to fail. */
  private static final class MemorySink implements DeadLetterSink {
    final List<DeadLetter> kept = Collections.synchronizedList(new ArrayList<>());
    volatile boolean failing;

    @Override
    public void write(List<DeadLetter> deadLetters, WaitedFor waitedFor) throws Exception {
      if (failing) {
        throw new IllegalStateException("sink down");
      }
      kept.addAll(deadLetters);
    }

    @Override
    public String name() {
      return "memory";
    }

    List<String> identities() {
      return kept.stream().map(DeadLetter::identity).toList();
    }
  }

  /** A record of one or more rows {@code {"id": n}}; an id of -1 does not fit UInt32. */
  private static class Row implements WriteRecord {
    final String identity;
    final long[] ids;

    Row(String identity, long... ids) {
      this.identity = identity;
      this.ids = ids;
    }

    @Override
    public String identity() {
      return identity;
    }

    @Override
    public EncodedRows rowsFor(TargetTable.Snapshot schema) {
      RowBinaryOutput out = new RowBinaryOutput();
      for (long id : ids) {
        ObjectNode row = JsonNodeFactory.instance.objectNode().put("id", id);
        try {
          schema.encoder().encode(row, out);
        } catch (RowRejectedException e) {
          return EncodedRows.rejected(e.getMessage());
        }
      }
      return EncodedRows.of(out.toByteArray(), 0, out.size(), ids.length);
    }

    @Override
    public DeadLetter deadLetter(String reason) {
      byte[] data = identity.getBytes(StandardCharsets.UTF_8);
      return DeadLetter.builder()
          .identity(identity)
          .data(data)
          .reason(reason)
          .failedAt(Instant.EPOCH)
          .build();
    }
  }

  private static List<Row> rows(long from, long to) {
    return LongStream.range(from, to).mapToObj(id -> new Row("r" + id, id)).toList();
  }

  private TableWriter writer(DeadLetterSink... sinks) {
    return new TableWriter(
        new TargetTable(TABLE, schemas), inserter, List.of(sinks), events, "test");
  }

  private static long count(List<WriteOutcome> outcomes, WriteOutcome outcome) {
    return outcomes.stream().filter(o -> o == outcome).count();
  }

  @Test
  void aBatchThatFitsIsOneInsertAndEveryRecordIsWritten() {
    TableWriter.Result result = writer(new MemorySink()).write(rows(0, 50));
    assertThat(result.outcomes()).hasSize(50).containsOnly(WRITTEN);
    assertThat(clickHouse.received()).hasSize(1);
    assertThat(clickHouse.stored()).isEqualTo(LongStream.range(0, 50).boxed().toList());
    assertThat(result.retryCause()).isNull();
  }

  @Test
  void onePoisonRecordIsIsolatedBySplittingAndOnlyItIsDeadLettered() {
    clickHouse.poison(13);
    MemorySink sink = new MemorySink();
    List<WriteOutcome> outcomes = writer(sink).write(rows(0, 32)).outcomes();
    assertThat(outcomes.get(13)).isEqualTo(DEAD_LETTERED);
    assertThat(count(outcomes, WRITTEN)).isEqualTo(31);
    assertThat(sink.identities()).containsExactly("r13");
    assertThat(sink.kept.get(0).reason())
        .isEqualTo(
            "ClickHouse refused it: Code: 469. DB::Exception: Constraint `no_poison` is violated."
                + " (VIOLATED_CONSTRAINT)");
    assertThat(clickHouse.stored())
        .as("every good record stored exactly once")
        .containsExactlyInAnyOrderElementsOf(
            LongStream.range(0, 32).filter(id -> id != 13).boxed().toList());
    // 1 + 2 per level of the halving down to the single record: 1 + 2 * log2(32).
    assertThat(clickHouse.received()).hasSize(11);
  }

  @Test
  void anUnknownErrorCodeIsIsolatedLikeADataRefusal() {
    clickHouse.poison(3);
    clickHouse.poisonAnswers(insert -> error(9999, 500, "something new", 0));
    MemorySink sink = new MemorySink();
    List<WriteOutcome> outcomes = writer(sink).write(rows(0, 8)).outcomes();
    assertThat(outcomes.get(3)).isEqualTo(DEAD_LETTERED);
    assertThat(count(outcomes, WRITTEN)).isEqualTo(7);
    assertThat(sink.kept.get(0).reason()).contains("something new");
  }

  @Test
  void withoutASinkThePoisonIsRefusedAndTheOthersAreWritten() {
    clickHouse.poison(2, 5);
    List<WriteOutcome> outcomes = writer().write(rows(0, 8)).outcomes();
    assertThat(outcomes)
        .containsExactly(WRITTEN, WRITTEN, REFUSED, WRITTEN, WRITTEN, REFUSED, WRITTEN, WRITTEN);
    assertThat(clickHouse.stored()).containsExactlyInAnyOrder(0L, 1L, 3L, 4L, 6L, 7L);
  }

  @Test
  void theResultGivesEachRefusedRecordTheReasonItsDeadLetterHolds() {
    clickHouse.poison(1);
    MemorySink sink = new MemorySink();
    TableWriter.Result result = writer(sink).write(rows(0, 3));
    assertThat(result.outcomes()).containsExactly(WRITTEN, DEAD_LETTERED, WRITTEN);
    assertThat(result.reasons())
        .containsExactly(null, sink.kept.get(0).reason(), null)
        .element(1)
        .isEqualTo(
            "ClickHouse refused it: Code: 469. DB::Exception: Constraint `no_poison` is violated."
                + " (VIOLATED_CONSTRAINT)");
    clickHouse.poison(4);
    TableWriter.Result refused = writer().write(rows(3, 5));
    assertThat(refused.outcomes()).containsExactly(WRITTEN, REFUSED);
    assertThat(refused.reasons().get(1)).startsWith("ClickHouse refused it: Code: 469.");
  }

  @Test
  void aRegisteredSecretInClickHousesRefusalReachesNoSinkAndNoResult() {
    String secret = "table-writer-test-secret-8d1f";
    JsonLog.neverPrint(secret);
    clickHouse.poison(0);
    clickHouse.poisonAnswers(insert -> error(9999, 500, "value '" + secret + "' refused", 0));
    MemorySink sink = new MemorySink();
    TableWriter.Result result = writer(sink).write(rows(0, 1));
    assertThat(sink.kept.get(0).reason())
        .isEqualTo("ClickHouse refused it: Code: 9999. DB::Exception: value '[redacted]' refused");
    assertThat(result.reasons()).containsExactly(sink.kept.get(0).reason());
  }

  @Test
  void aRecordIsNeverSplitItsGoodRowIsNotWrittenWhenItsOtherRowIsRefused() {
    clickHouse.poison(101);
    MemorySink sink = new MemorySink();
    List<Row> batch = List.of(new Row("a", 1), new Row("two-rows", 100, 101), new Row("b", 2));
    List<WriteOutcome> outcomes = writer(sink).write(batch).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN, DEAD_LETTERED, WRITTEN);
    assertThat(clickHouse.stored()).containsExactlyInAnyOrder(1L, 2L);
    assertThat(sink.identities()).containsExactly("two-rows");
  }

  @Test
  void aFailingSinkLeavesThePoisonForALaterTryAndTheGoodRecordsWritten() {
    clickHouse.poison(4);
    MemorySink sink = new MemorySink();
    sink.failing = true;
    TableWriter.Result result = writer(sink).write(rows(0, 8));
    assertThat(result.outcomes().get(4)).isEqualTo(RETRY);
    assertThat(count(result.outcomes(), WRITTEN)).isEqualTo(7);
    assertThat(result.retryCause()).hasMessage("memory failed: sink down");
  }

  @Test
  void everySinkMustKeepADeadLetterForItToCount() {
    clickHouse.poison(0);
    MemorySink first = new MemorySink();
    MemorySink second = new MemorySink();
    second.failing = true;
    List<WriteOutcome> outcomes = writer(first, second).write(rows(0, 2)).outcomes();
    assertThat(outcomes).containsExactly(RETRY, WRITTEN);
  }

  @Test
  void aTransientFailureLeavesEveryRecordForALaterTryAndSaysWhy() {
    for (int i = 0; i < 3; i++) {
      clickHouse.thenAnswer(insert -> error(241, 500, "Memory limit exceeded", 0));
    }
    MemorySink sink = new MemorySink();
    TableWriter.Result result = writer(sink).write(rows(0, 10));
    assertThat(result.outcomes()).containsOnly(RETRY);
    assertThat(clickHouse.received()).hasSize(3).extracting(i -> i.ids().size()).containsOnly(10);
    assertThat(clickHouse.stored()).isEmpty();
    assertThat(sink.kept).isEmpty();
    assertThat(((InsertException) result.retryCause()).serverCode()).isEqualTo(241);
  }

  @Test
  void aTransientFailureWhileSplittingKeepsWhatWasWrittenAndLeavesTheRest() {
    // [0, 8) refused, [0, 4) refused, [0, 2) refused, [0] stored, [1] refused alone; then an
    // outage meets [2, 4), and [4, 8) is never tried.
    clickHouse.poison(1);
    clickHouse.poisonAnswers(
        insert -> {
          if (insert.ids().equals(List.of(1L))) {
            for (int i = 0; i < 3; i++) {
              clickHouse.thenAnswer(next -> error(210, 500, "Network error", 0));
            }
          }
          return error(469, 400, "Constraint `no_poison` is violated. (VIOLATED_CONSTRAINT)", 0);
        });
    MemorySink sink = new MemorySink();
    TableWriter.Result result = writer(sink).write(rows(0, 8));
    assertThat(result.outcomes().get(0)).isEqualTo(WRITTEN);
    assertThat(result.outcomes().get(1)).isEqualTo(DEAD_LETTERED);
    assertThat(result.outcomes().subList(2, 8)).containsOnly(RETRY);
    assertThat(clickHouse.stored()).containsExactly(0L);
    assertThat(sink.identities()).containsExactly("r1");
    assertThat(((InsertException) result.retryCause()).serverCode()).isEqualTo(210);
  }

  @Test
  void aFailureOutsideTheRowsIsNotSplitAndNothingIsBlamed() {
    clickHouse.thenAnswer(insert -> error(497, 403, "Not enough privileges. (ACCESS_DENIED)", 0));
    MemorySink sink = new MemorySink();
    List<WriteOutcome> outcomes = writer(sink).write(rows(0, 16)).outcomes();
    assertThat(outcomes).containsOnly(RETRY);
    assertThat(clickHouse.received()).hasSize(1);
    assertThat(sink.kept).isEmpty();
  }

  @Test
  void aFailedViewWhoseRowsReachedTheTableIsWrittenOnceAndReported() {
    clickHouse.thenAnswer(
        insert ->
            error(
                395,
                500,
                "negative: while pushing to view db.mv. (FUNCTION_THROW_IF_VALUE_IS_NON_ZERO)",
                insert.ids().size()));
    MemorySink sink = new MemorySink();
    List<WriteOutcome> outcomes = writer(sink).write(rows(0, 4)).outcomes();
    assertThat(outcomes).containsOnly(WRITTEN);
    assertThat(clickHouse.received()).as("never sent again").hasSize(1);
    assertThat(sink.kept).isEmpty();
    assertThat(events.seen).containsExactly("view failed for [r0, r1, r2, r3]");
  }

  /**
   * A Distributed table's written_rows counts the rows it sent and those its own shard stored: it
   * can reach the batch's rows while a shard whose view failed never stored its later blocks.
   */
  @Test
  void aFailedViewOnADistributedTableIsSplitLikeARefusalWhateverWrittenRowsSays() {
    schemas.engine = "Distributed";
    clickHouse.poison(2);
    clickHouse.poisonAnswers(
        insert ->
            error(395, 500, "bad: while pushing to view db.mv. (X)", 2 * insert.ids().size()));
    MemorySink sink = new MemorySink();
    List<WriteOutcome> outcomes = writer(sink).write(rows(0, 4)).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN, WRITTEN, DEAD_LETTERED, WRITTEN);
    assertThat(sink.identities()).containsExactly("r2");
    assertThat(events.seen).noneMatch(event -> event.startsWith("view failed"));
  }

  /**
   * A table that keeps no rows (the "land through a view" layout) has its rows only where its views
   * put them: a view's failure there means they are nowhere, whatever written_rows says.
   */
  @ParameterizedTest
  @ValueSource(strings = {"Null", "Buffer", "Memory", "URL", ""})
  void aFailedViewOnATableThatKeepsNoRowsIsSplitLikeARefusal(String engine) {
    schemas.engine = engine;
    clickHouse.poison(2);
    clickHouse.poisonAnswers(
        insert -> error(395, 500, "bad: while pushing to view db.mv. (X)", insert.ids().size()));
    MemorySink sink = new MemorySink();
    List<WriteOutcome> outcomes = writer(sink).write(rows(0, 4)).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN, WRITTEN, DEAD_LETTERED, WRITTEN);
    assertThat(sink.identities()).containsExactly("r2");
    assertThat(events.seen)
        .noneMatch(event -> event.startsWith("view failed for"))
        .as("reported once for the batch, not once per split INSERT")
        .containsOnlyOnce("view failed, " + engine + " keeps nothing: 4")
        .filteredOn(event -> event.startsWith("view failed,"))
        .hasSize(1);
  }

  /** An outage inside the view (its table has too many parts) passes: nothing is blamed. */
  @Test
  void aViewsOutageOnATableThatKeepsNoRowsLeavesEveryRecordForALaterTry() {
    schemas.engine = "Null";
    clickHouse.poison(0, 1, 2, 3);
    clickHouse.poisonAnswers(
        insert ->
            error(
                252,
                500,
                "Too many parts (300) in table db.landed: while pushing to view db.mv. (TOO_MANY_PARTS)",
                insert.ids().size()));
    MemorySink sink = new MemorySink();
    List<WriteOutcome> outcomes = writer(sink).write(rows(0, 4)).outcomes();
    assertThat(outcomes).containsOnly(RETRY);
    assertThat(sink.kept).isEmpty();
    assertThat(clickHouse.received()).as("not split").hasSize(1);
  }

  /** A table swapped for one that keeps nothing (EXCHANGE TABLES) while the writer runs. */
  @Test
  void aTableThatStopsKeepingRowsWhileRunningIsSeenAtTheViewsFailure() {
    TableWriter writer = writer(new MemorySink());
    schemas.engine = "Null";
    clickHouse.poison(2);
    clickHouse.poisonAnswers(
        insert -> error(395, 500, "bad: while pushing to view db.mv. (X)", insert.ids().size()));
    List<WriteOutcome> outcomes = writer.write(rows(0, 4)).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN, WRITTEN, DEAD_LETTERED, WRITTEN);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ReplicatedReplacingMergeTree",
        "SharedMergeTree",
        "SummingMergeTree",
        "Log",
        "TinyLog",
        "StripeLog"
      })
  void aFailedViewOnATableThatKeepsRowsWhoseRowsReachedItIsWritten(String engine) {
    schemas.engine = engine;
    clickHouse.thenAnswer(
        insert -> error(395, 500, "bad: while pushing to view db.mv. (X)", insert.ids().size()));
    List<WriteOutcome> outcomes = writer(new MemorySink()).write(rows(0, 4)).outcomes();
    assertThat(outcomes).containsOnly(WRITTEN);
    assertThat(clickHouse.received()).as("never sent again").hasSize(1);
  }

  @Test
  void aFailedViewBeforeTheWholeInsertReachedTheTableIsSplitLikeARefusal() {
    clickHouse.poison(2);
    clickHouse.poisonAnswers(insert -> error(395, 500, "bad: while pushing to view db.mv. (X)", 0));
    MemorySink sink = new MemorySink();
    List<WriteOutcome> outcomes = writer(sink).write(rows(0, 4)).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN, WRITTEN, DEAD_LETTERED, WRITTEN);
  }

  @Test
  void aRetypedColumnIsReadAgainAndTheRecordsAreEncodedForItBeforeTheInsert() {
    TableWriter writer = writer(new MemorySink());
    List<Row> batch = rows(0, 3);
    batch.forEach(row -> row.rowsFor(writer.table().current())); // encoded on arrival
    schemas.idType = "Int64";
    clickHouse.thenAnswer(
        insert ->
            error(
                117,
                400,
                "Type of 'id' must be Int64, not UInt32: (while reading header). (INCORRECT_DATA)",
                0));
    List<WriteOutcome> outcomes = writer.write(batch).outcomes();
    assertThat(outcomes).containsOnly(WRITTEN);
    assertThat(clickHouse.received())
        .extracting(ScriptedClickHouse.Insert::columnTypes)
        .containsExactly(List.of("UInt32"), List.of("Int64"));
    assertThat(clickHouse.stored()).containsExactly(0L, 1L, 2L);
    assertThat(events.seen).containsExactly("schema changed");
  }

  @Test
  void aSchemaErrorWithTheSchemaUnchangedIsTreatedAsARefusal() {
    clickHouse.poison(1);
    clickHouse.poisonAnswers(insert -> error(16, 400, "There is no column x", 0));
    MemorySink sink = new MemorySink();
    List<WriteOutcome> outcomes = writer(sink).write(rows(0, 2)).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN, DEAD_LETTERED);
  }

  @Test
  void aSchemaThatKeepsChangingLeavesTheRecordsForALaterTry() {
    AtomicInteger version = new AtomicInteger();
    clickHouse.poison(0);
    clickHouse.poisonAnswers(
        insert -> {
          schemas.idType = version.incrementAndGet() % 2 == 0 ? "UInt32" : "Int64";
          return error(117, 400, "Type of 'id' must be X: (while reading header)", 0);
        });
    List<WriteOutcome> outcomes = writer(new MemorySink()).write(rows(0, 1)).outcomes();
    assertThat(outcomes).containsExactly(RETRY);
    assertThat(clickHouse.received()).hasSize(3);
  }

  @Test
  void aRecordTheEncoderRejectsIsDeadLetteredWithoutAnInsertOfIt() {
    MemorySink sink = new MemorySink();
    List<Row> batch = List.of(new Row("good", 1), new Row("negative", -1), new Row("also", 2));
    List<WriteOutcome> outcomes = writer(sink).write(batch).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN, DEAD_LETTERED, WRITTEN);
    assertThat(clickHouse.received()).hasSize(1);
    assertThat(clickHouse.stored()).containsExactly(1L, 2L);
    assertThat(sink.kept.get(0).reason())
        .isEqualTo("column 'id' (UInt32) rejects -1: out of range [0, 4294967295]");
  }

  @Test
  void aValueRefusedByAStaleSchemaIsWrittenWhenTheTableNowTakesIt() {
    TableWriter writer = writer(new MemorySink());
    schemas.idType = "Int64";
    List<WriteOutcome> outcomes = writer.write(List.of(new Row("negative", -1))).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN);
    assertThat(clickHouse.stored()).containsExactly(-1L);
  }

  @Test
  void aRecordWithoutRowsIsWrittenWithoutAnInsert() {
    List<WriteOutcome> outcomes = writer().write(List.of(new Row("empty"))).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN);
    assertThat(clickHouse.received()).isEmpty();
  }

  @Test
  void anInterruptLeavesTheBatchForALaterTryAndKeepsTheFlag() {
    Thread.currentThread().interrupt();
    try {
      clickHouse.thenAnswer(insert -> error(241, 500, "Memory limit exceeded", 0));
      List<WriteOutcome> outcomes = writer().write(rows(0, 3)).outcomes();
      assertThat(outcomes).containsOnly(RETRY);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void tokensFollowTheRecordsAnInsertCarriesAndAreTheSameOnEveryTry() {
    clickHouse.poison(3);
    writer(new MemorySink()).write(rows(0, 4));
    writer(new MemorySink()).write(rows(0, 4));
    List<ScriptedClickHouse.Insert> inserts = clickHouse.received();
    assertThat(inserts.subList(0, inserts.size() / 2))
        .extracting(ScriptedClickHouse.Insert::token)
        .isEqualTo(
            inserts.subList(inserts.size() / 2, inserts.size()).stream()
                .map(ScriptedClickHouse.Insert::token)
                .toList());
    assertThat(inserts.subList(0, inserts.size() / 2))
        .as("each set of records its own token")
        .extracting(ScriptedClickHouse.Insert::token)
        .doesNotHaveDuplicates()
        .allMatch(token -> token.startsWith("rows-"));
    assertThat(inserts.get(1).token())
        .as("the first half, records r0 and r1")
        .isEqualTo(DeduplicationTokens.of("test", List.of("r0", "r1")));
  }

  @Test
  void aRecordWithoutIdentityMeansNoToken() {
    writer().write(List.of(new Row(null, 1), new Row("b", 2)));
    assertThat(clickHouse.received().get(0).token()).isNull();
  }

  @Test
  void tokensDoNotCollideWhenIdentitiesRunTogether() {
    assertThat(DeduplicationTokens.of("test", List.of("ab", "c")))
        .isNotEqualTo(DeduplicationTokens.of("test", List.of("a", "bc")));
    assertThat(DeduplicationTokens.of("pubsub", List.of("a")))
        .as("the same identity from another source")
        .isNotEqualTo(DeduplicationTokens.of("bigquery\nsome table", List.of("a")));
  }

  @Test
  void theUntypedFormatReadsTheSchemaBeforeEveryInsertAndCatchesARetypedColumn() throws Exception {
    ClickHouseInserter untyped = inserter(InsertFormat.UNTYPED, inserter.options());
    TableWriter writer =
        new TableWriter(new TargetTable(TABLE, schemas), untyped, List.of(), events, "test");
    List<Row> batch = rows(0, 2);
    batch.forEach(row -> row.rowsFor(writer.table().current()));
    schemas.idType = "Int64";
    int readsBefore = schemas.reads.get();
    List<WriteOutcome> outcomes = writer.write(batch).outcomes();
    assertThat(outcomes).containsOnly(WRITTEN);
    assertThat(schemas.reads.get() - readsBefore)
        .as("one check, one re-read, one check")
        .isEqualTo(3);
    assertThat(clickHouse.stored()).as("read as Int64, so encoded for it").containsExactly(0L, 1L);
    assertThat(events.seen).containsExactly("schema changed");
  }

  @Test
  void deadLettersNameEveryFailedRecordOnceInOneSinkWrite() {
    clickHouse.poison(1, 6);
    MemorySink sink = new MemorySink();
    writer(sink).write(rows(0, 8));
    assertThat(sink.kept.stream().map(DeadLetter::identity).collect(Collectors.toList()))
        .containsExactlyInAnyOrder("r1", "r6");
  }

  @Test
  void aFailedViewOverSeveralBlocksIsNotTakenAsWrittenWhateverTheSummarySays() throws Exception {
    ClickHouseInserter smallBlocks =
        inserter(InsertFormat.TYPED, inserter.options().toBuilder().maxInsertBlockSize(2).build());
    // The views' rows inflate written_rows: 11 for an INSERT of 4 whose last block never landed.
    clickHouse.poison(3);
    clickHouse.poisonAnswers(
        insert -> error(395, 500, "bad: while pushing to view db.mv. (X)", 11));
    MemorySink sink = new MemorySink();
    TableWriter writer =
        new TableWriter(
            new TargetTable(TABLE, schemas), smallBlocks, List.of(sink), events, "test");
    List<WriteOutcome> outcomes = writer.write(rows(0, 4)).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN, WRITTEN, WRITTEN, WRITTEN);
    assertThat(clickHouse.received())
        .extracting(insert -> insert.ids().size())
        .as("split until each INSERT is one block")
        .containsExactly(4, 2, 2);
    assertThat(events.seen).containsExactly("view failed for [r2, r3]");
  }

  @Test
  void anEncoderThatThrowsRejectsItsRecordAndTheWriterStillAnswersEveryRecord() {
    WriteRecord exploding =
        new Row("exploding", 9) {
          @Override
          public EncodedRows rowsFor(TargetTable.Snapshot schema) {
            throw new ArithmeticException("BigInteger would overflow supported range");
          }
        };
    MemorySink sink = new MemorySink();
    List<WriteOutcome> outcomes =
        writer(sink).write(List.of(new Row("a", 1), exploding, new Row("b", 2))).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN, DEAD_LETTERED, WRITTEN);
    assertThat(sink.kept.get(0).reason())
        .isEqualTo(
            "the record could not be encoded: java.lang.ArithmeticException: BigInteger would"
                + " overflow supported range");
  }

  @Test
  void aDeadLetterThatCannotBeMadeLeavesItsRecordForALaterTry() {
    WriteRecord unkeepable =
        new Row("unkeepable", -1) {
          @Override
          public DeadLetter deadLetter(String reason) {
            throw new IllegalStateException("no data to keep");
          }
        };
    List<WriteOutcome> outcomes =
        writer(new MemorySink()).write(List.of(new Row("a", 1), unkeepable)).outcomes();
    assertThat(outcomes).containsExactly(WRITTEN, RETRY);
  }

  @Test
  void aSchemaThatCannotBeReadDuringAnOutageBlamesNoRecord() {
    TableWriter writer = writer(new MemorySink());
    schemas.unreadable = true;
    for (int i = 0; i < 3; i++) {
      clickHouse.thenAnswer(insert -> error(210, 500, "Network error", 0));
    }
    MemorySink sink = new MemorySink();
    List<WriteOutcome> outcomes =
        new TableWriter(writer.table(), inserter, List.of(sink), events, "test")
            .write(List.of(new Row("good", 1), new Row("negative", -1)))
            .outcomes();
    assertThat(outcomes).containsExactly(RETRY, DEAD_LETTERED);
    assertThat(sink.identities()).containsExactly("negative");
  }
}
