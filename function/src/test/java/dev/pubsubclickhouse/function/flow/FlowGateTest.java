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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The gate between batcher and writer, with readings the test hands it. */
class FlowGateTest {
  private final Metrics metrics = new Metrics();
  private final List<List<PendingMessage>> written = new ArrayList<>();
  private final AtomicInteger reads = new AtomicInteger();
  private TableLoad next = parts(0);
  private static final TableName TABLE = new TableName("db", "events");
  private final FlowGate gate =
      FlowFixtures.gate(
          TABLE,
          () -> {
            reads.incrementAndGet();
            if (next == null) {
              throw new IllegalStateException("ClickHouse is not answering");
            }
            return next;
          },
          metrics,
          Duration.ofSeconds(2));

  /** What the batch writer does with a batch: the gate's messages written, or none. */
  private void send(List<PendingMessage> batch) {
    if (gate.letThrough(batch)) {
      written.add(batch);
      batch.forEach(m -> m.answer().complete(PushOutcome.STORED));
    }
  }

  private static List<PendingMessage> batch(int size) {
    List<PendingMessage> batch = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      batch.add(PendingMessages.of("m" + i, 0));
    }
    return batch;
  }

  @Test
  void withoutPressureBatchesPassWithoutAnExtraReading() {
    gate.watch();
    send(batch(3));
    assertThat(written).hasSize(1);
    assertThat(reads).hasValue(1);
    assertThat(gate.admits()).isTrue();
  }

  @Test
  void underPressureTheTableIsReadAgainBeforeEveryInsert() {
    next = parts(6);
    gate.watch();
    send(batch(1));
    send(batch(1));
    assertThat(reads).hasValue(3);
    assertThat(written).hasSize(2);
  }

  @Test
  void nearTheLimitABatchIsAnswered429InsteadOfWrittenAndNewMessagesAreRefused() {
    next = parts(6);
    gate.watch();
    next = parts(8); // another instance's INSERTs since the last reading
    List<PendingMessage> batch = batch(4);
    send(batch);
    assertThat(written).isEmpty();
    assertThat(batch)
        .allSatisfy(m -> assertThat(m.answer()).isCompletedWithValue(PushOutcome.OVERLOADED));
    assertThat(gate.admits()).isFalse();
    assertThat(metrics.throttled.value()).isEqualTo(4);
    // merges bring it down: messages are admitted again
    next = parts(3);
    gate.watch();
    assertThat(gate.admits()).isTrue();
  }

  @Test
  void aTableThatCannotBeReadLeavesFlowControlOffUntilItCan() {
    next = parts(9);
    gate.watch();
    assertThat(gate.admits()).isFalse();
    next = null;
    gate.watch();
    assertThat(gate.admits()).isTrue();
    send(batch(1));
    assertThat(written).hasSize(1);
  }

  @Test
  void theBatcherIsWokenWhenThePaceFalls() {
    AtomicInteger wakes = new AtomicInteger();
    gate.whenPaceFalls(wakes::incrementAndGet);
    next = parts(7);
    gate.watch();
    assertThat(wakes).hasValue(0);
    next = parts(1);
    gate.watch();
    assertThat(wakes).hasValue(1);
  }

  private FlowGate watchedEvery10Ms(Supplier<TableLoad> reader) {
    return FlowFixtures.gate(TABLE, reader, metrics, Duration.ofMillis(10));
  }

  @Test
  void anErrorWhileReadingTheTableDoesNotEndTheWatch() throws Exception {
    // The later readings wait until the first one is checked: on a busy machine the scheduler
    // could otherwise read twice more before this thread looks.
    CountDownLatch firstChecked = new CountDownLatch(1);
    FlowGate watched =
        watchedEvery10Ms(
            () -> {
              int reading = reads.incrementAndGet();
              if (reading == 1) {
                return parts(9);
              }
              awaitUninterruptibly(firstChecked);
              if (reading == 2) {
                throw new StackOverflowError("a reader's Error");
              }
              return parts(1);
            });
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      watched.start(scheduler);
      assertThat(watched.admits()).as("the first reading: near the limit").isFalse();
      firstChecked.countDown();
      awaitTrue(() -> reads.get() >= 5, "readings after the Error");
      assertThat(watched.admits()).isTrue();
      assertThat(watched.watchDeath()).isEmpty();
    } finally {
      scheduler.shutdownNow();
    }
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aWatchThatCannotGoOnSaysWhyAndRefusesNothing() throws Exception {
    ScheduledExecutorService scheduler = new SchedulerFailingOnItsSecondTask();
    FlowGate watched = watchedEvery10Ms(() -> parts(reads.incrementAndGet() == 1 ? 1 : 9));
    try {
      watched.start(scheduler);
      awaitTrue(() -> watched.watchDeath().isPresent(), "the watch's death");
      assertThat(watched.watchDeath()).containsInstanceOf(OutOfMemoryError.class);
      assertThat(reads).as("no reading after").hasValue(2);
      assertThat(watched.admits()).as("not frozen refusing").isTrue();
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void aWatchStoppedAtShutdownIsNoDeath() throws Exception {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    FlowGate watched = watchedEvery10Ms(() -> parts(reads.incrementAndGet()));
    watched.start(scheduler);
    awaitTrue(() -> reads.get() >= 2, "a scheduled reading");
    scheduler.shutdownNow();
    assertThat(scheduler.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(watched.watchDeath()).isEmpty();
  }
}
