package dev.pubsubclickhouse.function.flow;

import static dev.pubsubclickhouse.function.flow.Eventually.awaitTrue;
import static dev.pubsubclickhouse.function.flow.FlowFixtures.parts;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.function.ingest.PendingMessage;
import dev.pubsubclickhouse.function.ingest.PendingMessages;
import dev.pubsubclickhouse.function.ingest.PushOutcome;
import dev.pubsubclickhouse.function.observability.Metrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Flow control per table: each table's readings, handed in by the test, refuse its own messages.
 */
class TableGatesTest {
  private static final TableName EVENTS = new TableName("db", "events");
  private static final TableName CLICKS = new TableName("db", "clicks");

  private final Metrics metrics = new Metrics();
  private final Map<TableName, Long> parts =
      new ConcurrentHashMap<>(Map.of(EVENTS, 1L, CLICKS, 1L));
  private final List<List<String>> written = new ArrayList<>();
  private final ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor();
  private final TableGates gates =
      new TableGates(
          EVENTS,
          table -> gate(table, () -> parts(parts.get(table))),
          watch,
          batch -> {
            written.add(batch.stream().map(m -> m.message().messageId()).toList());
            batch.forEach(m -> m.answer().complete(PushOutcome.STORED));
          },
          metrics);

  /** A gate whose table is read every 10 ms, for 500 INSERTs a second at most. */
  private FlowGate gate(TableName table, Supplier<TableLoad> reader) {
    return FlowFixtures.gate(table, reader, metrics, Duration.ofMillis(10));
  }

  @AfterEach
  void stopWatching() {
    watch.shutdownNow();
  }

  @Test
  void aTableNearItsLimitRefusesItsOwnMessagesOnlyAndTheOthersAreWritten() throws Exception {
    parts.put(CLICKS, 9L);
    assertThat(gates.admits(EVENTS)).isTrue();
    gates.admits(CLICKS); // its first message: the table is watched from now on
    awaitTrue(() -> !gates.admits(CLICKS), "the clicks table read near its limit");
    assertThat(gates.admits(EVENTS)).isTrue();

    List<PendingMessage> batch =
        List.of(
            PendingMessages.to(EVENTS, "e1"),
            PendingMessages.to(CLICKS, "c1"),
            PendingMessages.to(EVENTS, "e2"),
            PendingMessages.to(CLICKS, "c2"));
    gates.accept(batch);

    assertThat(written).containsExactly(List.of("e1", "e2"));
    assertThat(batch.get(0).answer()).isCompletedWithValue(PushOutcome.STORED);
    assertThat(batch.get(2).answer()).isCompletedWithValue(PushOutcome.STORED);
    assertThat(batch.get(1).answer()).isCompletedWithValue(PushOutcome.OVERLOADED);
    assertThat(batch.get(3).answer()).isCompletedWithValue(PushOutcome.OVERLOADED);
    assertThat(metrics.throttled.value()).isEqualTo(2);
    assertThat(metrics.snapshot()).containsEntry("tables-refusing", 1L);
    assertThat(metrics.snapshot()).containsEntry("part-pressure-percent", 90L);

    // merges bring it down: its messages are taken again
    parts.put(CLICKS, 2L);
    awaitTrue(() -> gates.admits(CLICKS), "the clicks table read below its limit");
  }

  @Test
  void eachTableHasItsOwnPaceARefusingTableNoneAndTheBatcherIsWokenWhenOneFalls() throws Exception {
    AtomicInteger wakes = new AtomicInteger();
    gates.whenPaceFalls(wakes::incrementAndGet);
    long ceiling = 2_000_000L; // 500 INSERTs a second
    assertThat(gates.paceNanos(EVENTS)).isEqualTo(ceiling);
    assertThat(gates.paceNanos(CLICKS)).as("not watched yet").isZero();
    parts.put(CLICKS, 7L);
    gates.admits(CLICKS);
    awaitTrue(
        () -> gates.paceNanos(CLICKS) > ceiling, "the clicks table's pressure slows its INSERTs");
    assertThat(gates.admits(CLICKS)).as("under pressure, not yet refusing").isTrue();
    assertThat(gates.paceNanos(EVENTS)).as("the events table's own pace").isEqualTo(ceiling);
    assertThat(metrics.snapshot()).containsEntry("insert-pace-us", gates.paceNanos(CLICKS) / 1000);
    parts.put(CLICKS, 9L);
    awaitTrue(() -> !gates.admits(CLICKS), "the clicks table refusing");
    assertThat(gates.paceNanos(CLICKS))
        .as("a refusing table's messages are not sent: nothing to hold back")
        .isZero();
    parts.put(CLICKS, 1L);
    awaitTrue(() -> gates.admits(CLICKS), "the clicks table below its limit");
    assertThat(gates.paceNanos(CLICKS)).isEqualTo(ceiling);
    awaitTrue(() -> wakes.get() > 0, "the batcher woken");
  }

  @Test
  void aTableTheBatchIsTheFirstToNameIsReadBeforeItsMessagesAreSent() {
    parts.put(CLICKS, 9L);
    List<PendingMessage> batch =
        List.of(PendingMessages.to(EVENTS, "e1"), PendingMessages.to(CLICKS, "c1"));
    gates.accept(batch); // no admits(CLICKS) before: its gate is made here
    assertThat(batch.get(1).answer()).isCompletedWithValue(PushOutcome.OVERLOADED);
    assertThat(written).containsExactly(List.of("e1"));
  }

  @Test
  void aFirstBatchWaitsForTheFirstReadingUnderWay() throws Exception {
    CountDownLatch readingStarted = new CountDownLatch(1);
    CountDownLatch readingMayEnd = new CountDownLatch(1);
    AtomicInteger clicksReadings = new AtomicInteger();
    TableGates slowReads =
        new TableGates(
            EVENTS,
            table ->
                gate(
                    table,
                    () -> {
                      if (table.equals(CLICKS) && clicksReadings.incrementAndGet() == 1) {
                        readingStarted.countDown();
                        try {
                          readingMayEnd.await();
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                      }
                      return parts(table.equals(CLICKS) ? 9 : 1);
                    }),
            watch,
            batch -> written.add(batch.stream().map(m -> m.message().messageId()).toList()),
            metrics);
    // as in the service: the first message makes the gate, whose first reading starts at once
    assertThat(slowReads.admits(CLICKS)).isTrue();
    assertThat(readingStarted.await(10, TimeUnit.SECONDS)).isTrue();
    PendingMessage c1 = PendingMessages.to(CLICKS, "c1");
    Thread flusher = new Thread(() -> slowReads.accept(List.of(c1)));
    flusher.start();
    flusher.join(200);
    assertThat(c1.answer()).as("not sent before the reading ends").isNotDone();
    readingMayEnd.countDown();
    flusher.join(10_000);
    assertThat(c1.answer()).isCompletedWithValue(PushOutcome.OVERLOADED);
    assertThat(written).isEmpty();
  }

  @Test
  void aTableTheWriterFailsForIsAnswered503AndTheBatchsOtherTablesAreStillWritten()
      throws Exception {
    List<List<String>> stored = new ArrayList<>();
    TableGates failingForEvents =
        new TableGates(
            EVENTS,
            table -> gate(table, () -> parts(table.equals(CLICKS) ? 7 : 1)),
            watch,
            batch -> {
              if (batch.stream().anyMatch(m -> m.table().equals(EVENTS))) {
                throw new IllegalStateException("the writer broke");
              }
              stored.add(batch.stream().map(m -> m.message().messageId()).toList());
              batch.forEach(m -> m.answer().complete(PushOutcome.STORED));
            },
            new Metrics());
    failingForEvents.admits(CLICKS);
    awaitTrue(
        () -> failingForEvents.paceNanos(CLICKS) > 2_000_000L, "the clicks table under pressure");
    List<PendingMessage> batch =
        List.of(PendingMessages.to(EVENTS, "e1"), PendingMessages.to(CLICKS, "c1"));
    failingForEvents.accept(batch);
    assertThat(batch.get(0).answer()).isCompletedWithValue(PushOutcome.UNAVAILABLE);
    assertThat(batch.get(1).answer()).isCompletedWithValue(PushOutcome.STORED);
    assertThat(stored).containsExactly(List.of("c1"));
  }

  @Test
  void aMessageAnsweredBeforeItsBatchIsNeitherCountedNorWritten() throws Exception {
    parts.put(CLICKS, 9L);
    gates.admits(CLICKS);
    awaitTrue(() -> !gates.admits(CLICKS), "the clicks table refusing");
    PendingMessage e1 = PendingMessages.to(EVENTS, "e1");
    PendingMessage c1 = PendingMessages.to(CLICKS, "c1");
    e1.answer().complete(PushOutcome.UNAVAILABLE); // its answer deadline passed
    c1.answer().complete(PushOutcome.UNAVAILABLE);
    gates.accept(List.of(e1, c1));
    assertThat(written).isEmpty();
    assertThat(metrics.throttled.value()).isZero();
  }
}
