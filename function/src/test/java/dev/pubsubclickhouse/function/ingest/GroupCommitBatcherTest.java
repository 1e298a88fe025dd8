package dev.pubsubclickhouse.function.ingest;

import static dev.pubsubclickhouse.function.ingest.BatcherFixtures.PATIENT;
import static dev.pubsubclickhouse.function.ingest.BatcherFixtures.await;
import static dev.pubsubclickhouse.function.ingest.BatcherFixtures.awaitWaiting;
import static dev.pubsubclickhouse.function.ingest.BatcherFixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.schema.TableName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Batch formation with real flusher threads; the writer here records batches instead of writing
 * them. Every step waits on a latch or an answer, never on the clock: the timeouts below only stop
 * a broken test, and are far longer than any wait the rule could choose.
 */
class GroupCommitBatcherTest {
  private static final TableName EVENTS = new TableName("db", "events");
  private static final TableName CLICKS = new TableName("db", "clicks");
  private final List<List<PendingMessage>> batches = new CopyOnWriteArrayList<>();
  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private PendingMessage message(String id) {
    return PendingMessages.of(id, now.get());
  }

  /** A batcher on this test's clock, which moves only when the test moves it. */
  private GroupCommitBatcher batcher(BatchPolicy policy, Consumer<List<PendingMessage>> writer) {
    return new GroupCommitBatcher(policy, tables -> 0, false, now::get, writer);
  }

  private void record(List<PendingMessage> batch) {
    batches.add(List.copyOf(batch));
    batch.forEach(m -> m.answer().complete(PushOutcome.STORED));
  }

  private final CountDownLatch firstWriting = new CountDownLatch(1);
  private final CountDownLatch releaseFirst = new CountDownLatch(1);

  /**
   * Records every batch, holding the first one in the writer from {@link #firstWriting} until
   * {@link #releaseFirst}: an INSERT in flight while the test offers more.
   */
  private void recordHoldingTheFirst(List<PendingMessage> batch) {
    if (firstWriting.getCount() == 1) { // one writer at a time until the first is held
      firstWriting.countDown();
      await(releaseFirst);
    }
    record(batch);
  }

  /** As {@link #recordHoldingTheFirst}, the first INSERT taking 3 ms on the test's clock. */
  private void recordHoldingAFirstOf3Ms(List<PendingMessage> batch) {
    if (batches.isEmpty()) {
      now.addAndGet(3_000_000);
    }
    recordHoldingTheFirst(batch);
  }

  @Test
  void aFullBatchGoesAtOnceAndTheRestFollows() throws Exception {
    try (GroupCommitBatcher batcher =
        batcher(policy().maxRows(3).linger(Duration.ofSeconds(10)).build(), this::record)) {
      List<PendingMessage> messages =
          List.of(message("1"), message("2"), message("3"), message("4"));
      messages.forEach(
          m -> assertThat(batcher.offer(m)).isEqualTo(GroupCommitBatcher.Refusal.NONE));
      messages.get(2).answer().get(PATIENT, TimeUnit.SECONDS);
      assertThat(batches.get(0))
          .extracting(m -> m.message().messageId())
          .containsExactly("1", "2", "3");
      assertThat(batcher.drain(PATIENT, TimeUnit.SECONDS)).isTrue();
      assertThat(batches.get(1)).extracting(m -> m.message().messageId()).containsExactly("4");
    }
  }

  @Test
  void aLoneMessageIsWrittenAtOnceByItsOwnCaller() throws Exception {
    // maxWait ten minutes and a clock that never moves: only the rule's "at once" can send it
    List<Thread> writers = new CopyOnWriteArrayList<>();
    try (GroupCommitBatcher batcher =
        batcher(
            policy().build(),
            batch -> {
              writers.add(Thread.currentThread());
              record(batch);
            })) {
      PendingMessage lone = message("lone");
      batcher.offer(lone);
      assertThat(lone.answer()).isCompletedWithValue(PushOutcome.STORED);
      assertThat(writers).containsExactly(Thread.currentThread());
    }
  }

  @Test
  void aTableHeldBackByItsPaceHoldsUpOnlyItsOwnMessages() throws Exception {
    long clicksPace = 1_000_000_000L; // one INSERT a second into clicks; events unpaced
    PendingMessage c1 = PendingMessages.to(CLICKS, "c1");
    PendingMessage c2 = PendingMessages.to(CLICKS, "c2");
    PendingMessage e1 = PendingMessages.to(EVENTS, "e1");
    PendingMessage e2 = PendingMessages.to(EVENTS, "e2");
    now.set(System.nanoTime()); // the clock of PendingMessages.to's messages, after them
    try (GroupCommitBatcher batcher =
        new GroupCommitBatcher(
            policy().build(),
            table -> table.equals(CLICKS) ? clicksPace : 0,
            true,
            now::get,
            this::record)) {
      batcher.offer(c1);
      assertThat(c1.answer()).as("written by its caller").isCompletedWithValue(PushOutcome.STORED);
      batcher.offer(c2);
      now.addAndGet(1_000_000); // past the instance's ceiling (10,000 INSERTs a second)
      batcher.offer(e1);
      assertThat(e1.answer())
          .as("events goes while clicks waits out its pace")
          .isCompletedWithValue(PushOutcome.STORED);
      now.addAndGet(1_000_000);
      batcher.offer(e2);
      assertThat(e2.answer()).isCompletedWithValue(PushOutcome.STORED);
      assertThat(c2.answer()).isNotDone();
      now.addAndGet(clicksPace);
      batcher.wake();
      assertThat(c2.answer().get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
    }
    assertThat(batches)
        .extracting(batch -> batch.stream().map(m -> m.message().messageId()).toList())
        .containsExactly(List.of("c1"), List.of("e1"), List.of("e2"), List.of("c2"));
  }

  @Test
  void withSeveralTablesATableHeldBackByItsPaceMayHoldOnlyHalfOfWhatMayWait() throws Exception {
    List<PendingMessage> c = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      c.add(PendingMessages.to(CLICKS, "c" + i));
    }
    PendingMessage e1 = PendingMessages.to(EVENTS, "e1");
    now.set(System.nanoTime()); // the clock of PendingMessages.to's messages, after them
    try (GroupCommitBatcher batcher = pacedClicks(4, true)) { // a held-back table may hold 2
      assertThat(c.stream().map(batcher::offer))
          .as("c1 written by its caller, c2 and c3 held back by the pace, c4 beyond its share")
          .containsExactly(
              GroupCommitBatcher.Refusal.NONE,
              GroupCommitBatcher.Refusal.NONE,
              GroupCommitBatcher.Refusal.NONE,
              GroupCommitBatcher.Refusal.FULL);
      now.addAndGet(1_000_000);
      assertThat(batcher.offer(e1)).isEqualTo(GroupCommitBatcher.Refusal.NONE);
      assertThat(e1.answer()).isCompletedWithValue(PushOutcome.STORED);
      assertThat(batcher.drain(PATIENT, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(c.get(2).answer()).isCompletedWithValue(PushOutcome.STORED);
  }

  @Test
  void withOneTableItMayHoldAllThatMayWaitWhateverItsPace() throws Exception {
    List<PendingMessage> c = new ArrayList<>();
    for (int i = 1; i <= 6; i++) {
      c.add(PendingMessages.to(CLICKS, "c" + i));
    }
    now.set(System.nanoTime());
    try (GroupCommitBatcher batcher = pacedClicks(4, false)) {
      assertThat(c.stream().map(batcher::offer))
          .as("c1 written by its caller, c2 to c5 wait, c6 beyond what may wait")
          .containsExactly(
              GroupCommitBatcher.Refusal.NONE,
              GroupCommitBatcher.Refusal.NONE,
              GroupCommitBatcher.Refusal.NONE,
              GroupCommitBatcher.Refusal.NONE,
              GroupCommitBatcher.Refusal.NONE,
              GroupCommitBatcher.Refusal.FULL);
      assertThat(batcher.drain(PATIENT, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Up to {@code maxPending} may wait; the clicks table is paced to one INSERT a second. */
  private GroupCommitBatcher pacedClicks(int maxPending, boolean severalTables) {
    return new GroupCommitBatcher(
        policy().maxPendingMessages(maxPending).build(),
        table -> table.equals(CLICKS) ? 1_000_000_000L : 0,
        severalTables,
        now::get,
        this::record);
  }

  @Test
  void aTableWithNoInsertInFlightGoesBesideAnotherTablesWhileItsOwnGatherBehindItsOwn()
      throws Exception {
    PendingMessage e0 = PendingMessages.to(EVENTS, "e0");
    PendingMessage c1 = PendingMessages.to(CLICKS, "c1");
    PendingMessage e1 = PendingMessages.to(EVENTS, "e1");
    now.set(System.nanoTime()); // the clock of PendingMessages.to's messages, after them
    try (GroupCommitBatcher batcher =
        new GroupCommitBatcher(
            twoAtOnce(1000, Duration.ZERO),
            table -> 0,
            true,
            now::get,
            this::recordHoldingTheFirst)) {
      offerFromAnotherThread(batcher, e0);
      await(firstWriting); // an INSERT into events in flight
      now.addAndGet(1_000_000); // past the instance's ceiling
      batcher.offer(c1);
      assertThat(c1.answer())
          .as("clicks written by its caller beside the INSERT into events")
          .isCompletedWithValue(PushOutcome.STORED);
      batcher.offer(e1);
      awaitFlushersWaiting(batcher, 2); // the flusher woken by e1 has decided, and waits again
      assertThat(e1.answer()).as("gathers behind the INSERT into events").isNotDone();
      releaseFirst.countDown();
      awaitWaiting(batcher, 1); // e0's INSERT has ended
      now.addAndGet(1_000_000_000L); // past the wait for e0's sender to come back
      batcher.wake();
      assertThat(e1.answer().get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
    }
    assertThat(batches)
        .extracting(batch -> batch.stream().map(m -> m.message().messageId()).toList())
        .containsExactly(List.of("c1"), List.of("e0"), List.of("e1"));
  }

  @Test
  void aBatchHoldsOneTablesMessagesTheTableWaitingLongestFirstWhoeverCalls() throws Exception {
    PendingMessage e0 = PendingMessages.to(EVENTS, "e0"); // events' queue is the first made
    List<PendingMessage> next =
        List.of(
            PendingMessages.to(CLICKS, "c1"),
            PendingMessages.to(EVENTS, "e1"),
            PendingMessages.to(CLICKS, "c2"));
    PendingMessage e2 = PendingMessages.to(EVENTS, "e2");
    now.set(System.nanoTime()); // the clock of PendingMessages.to's messages, after them
    try (GroupCommitBatcher batcher =
        batcher(
            policy().build(), // one INSERT at a time
            this::recordHoldingAFirstOf3Ms)) {
      offerFromAnotherThread(batcher, e0);
      await(firstWriting);
      next.forEach(batcher::offer);
      releaseFirst.countDown();
      awaitWaiting(batcher, 3); // they wait for e0's sender to come back
      batcher.offer(e2); // it is back: both tables may go, and clicks has waited longest
      assertThat(batcher.drain(PATIENT, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(batches)
        .extracting(batch -> batch.stream().map(m -> m.message().messageId()).toList())
        .containsExactly(List.of("e0"), List.of("c1", "c2"), List.of("e1", "e2"));
  }

  @Test
  void theLastSlotGoesToATableWithNoInsertInFlightBeforeAFullBatchOfATableWithOne()
      throws Exception {
    PendingMessage e0 = PendingMessages.to(EVENTS, "e0");
    List<PendingMessage> e = PendingMessages.allTo(EVENTS, "e1", "e2", "e3");
    PendingMessage c1 = PendingMessages.to(CLICKS, "c1"); // younger than events' messages
    now.set(System.nanoTime()); // the clock of PendingMessages.to's messages, after them
    try (GroupCommitBatcher batcher = twoSlotsOfThreeRows(Duration.ZERO)) {
      offerFromAnotherThread(batcher, e0);
      await(firstWriting); // an INSERT into events in flight
      e.forEach(batcher::offer); // a full batch, held by the instance's ceiling
      batcher.offer(c1); // held by the ceiling too
      now.addAndGet(1_000_000); // past the ceiling: both may go, one slot is free
      batcher.wake();
      awaitWaiting(batcher, 4); // c1 took the free slot, and its INSERT has ended
      now.addAndGet(1_000_000); // past the ceiling again: events' full batch goes beside e0
      batcher.wake();
      assertThat(e.get(2).answer().get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
      releaseFirst.countDown();
      assertThat(batcher.drain(PATIENT, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(batches)
        .extracting(batch -> batch.stream().map(m -> m.message().messageId()).toList())
        .containsExactly(List.of("c1"), List.of("e1", "e2", "e3"), List.of("e0"));
  }

  @Test
  void theLastSlotIsKeptForATableWithMessagesWaitingEvenWhileItLingers() throws Exception {
    List<PendingMessage> first = PendingMessages.allTo(EVENTS, "e0", "e1", "e2");
    List<PendingMessage> second = PendingMessages.allTo(EVENTS, "e3", "e4", "e5");
    PendingMessage c1 = PendingMessages.to(CLICKS, "c1");
    now.set(System.nanoTime()); // the clock of PendingMessages.to's messages, after them
    long linger = TimeUnit.SECONDS.toNanos(10);
    try (GroupCommitBatcher batcher = twoSlotsOfThreeRows(Duration.ofNanos(linger))) {
      batcher.offer(first.get(0)); // lingers
      batcher.offer(first.get(1));
      offerFromAnotherThread(batcher, first.get(2)); // full: written at once, by its caller
      await(firstWriting); // an INSERT into events in flight
      batcher.offer(c1); // lingers
      second.forEach(batcher::offer); // a full batch, which no linger holds
      now.addAndGet(1_000_000); // past the instance's ceiling
      batcher.wake();
      awaitFlushersWaiting(batcher, 2);
      assertThat(second.get(2).answer()).as("the last slot is kept for clicks").isNotDone();
      now.addAndGet(linger); // past c1's linger
      batcher.wake();
      assertThat(c1.answer().get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
      releaseFirst.countDown();
      first.get(0).answer().get(PATIENT, TimeUnit.SECONDS);
      assertThat(batcher.drain(PATIENT, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(batches)
        .extracting(batch -> batch.stream().map(m -> m.message().messageId()).toList())
        .containsExactly(List.of("c1"), List.of("e0", "e1", "e2"), List.of("e3", "e4", "e5"));
  }

  /** Two INSERTs at once, three rows a batch, several tables, none paced. */
  private GroupCommitBatcher twoSlotsOfThreeRows(Duration linger) {
    return new GroupCommitBatcher(
        twoAtOnce(3, linger), table -> 0, true, now::get, this::recordHoldingTheFirst);
  }

  /** Two INSERTs at once, a batch up to {@code maxRows}, waiting ten minutes at most. */
  private static BatchPolicy twoAtOnce(int maxRows, Duration linger) {
    return policy().maxConcurrentInserts(2).maxRows(maxRows).linger(linger).build();
  }

  @Test
  void aCallerWhoseTableIsHeldBackLeavesAnotherTablesBatchToAFlusher() throws Exception {
    PendingMessage e0 = PendingMessages.to(EVENTS, "e0");
    List<PendingMessage> e = PendingMessages.allTo(EVENTS, "e1", "e2");
    List<PendingMessage> c = PendingMessages.allTo(CLICKS, "c1", "c2", "c3");
    now.set(System.nanoTime()); // the clock of PendingMessages.to's messages, after them
    Map<String, Thread> writers = new ConcurrentHashMap<>();
    try (GroupCommitBatcher batcher =
        new GroupCommitBatcher(
            twoAtOnce(1000, Duration.ZERO),
            table -> table.equals(CLICKS) ? 1_000_000_000L : 0,
            true,
            now::get,
            batch -> {
              writers.put(batch.get(0).message().messageId(), Thread.currentThread());
              recordHoldingTheFirst(batch);
            })) {
      offerFromAnotherThread(batcher, e0);
      await(firstWriting); // an INSERT into events in flight
      e.forEach(batcher::offer); // they gather behind it
      now.addAndGet(1_000_000); // past the instance's ceiling
      batcher.offer(c.get(0)); // written by its caller; clicks is then held back by its pace
      releaseFirst.countDown();
      awaitWaiting(batcher, 2);
      awaitFlushersWaiting(batcher, 2); // e1 and e2 wait for e0's and c1's senders to come back
      now.addAndGet(1_000_000); // past the instance's ceiling again
      batcher.offer(c.get(1));
      batcher.offer(c.get(2)); // the last sender expected back: events may go now
      assertThat(e.get(1).answer().get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
      assertThat(writers.get("e1"))
          .as("events' batch is written by a flusher, not by a caller held back by its pace")
          .isNotEqualTo(Thread.currentThread());
      assertThat(c.get(2).answer()).isNotDone();
    }
    assertThat(batches)
        .extracting(batch -> batch.stream().map(m -> m.message().messageId()).toList())
        .containsExactly(List.of("c1"), List.of("e0"), List.of("e1", "e2"), List.of("c2", "c3"));
  }

  @Test
  void whileAnInsertIsInFlightNewMessagesGatherForTheNext() throws Exception {
    try (GroupCommitBatcher batcher = batcher(policy().build(), this::recordHoldingAFirstOf3Ms)) {
      PendingMessage first = message("first");
      offerFromAnotherThread(batcher, first);
      await(firstWriting); // the first batch is now held inside the writer
      List<PendingMessage> next = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        next.add(message("next-" + i));
        batcher.offer(next.get(i));
      }
      releaseFirst.countDown();
      awaitWaiting(batcher, 5);
      // The first message's sender is expected back, and the clock stands still: nothing can go
      // until it is back, and then everything goes as one batch.
      assertThat(first.answer()).isCompletedWithValue(PushOutcome.STORED);
      PendingMessage back = message("back");
      batcher.offer(back);
      back.answer().get(PATIENT, TimeUnit.SECONDS);
    }
    assertThat(batches).hasSize(2);
    assertThat(batches.get(0)).extracting(m -> m.message().messageId()).containsExactly("first");
    assertThat(batches.get(1))
        .extracting(m -> m.message().messageId())
        .containsExactly("next-0", "next-1", "next-2", "next-3", "next-4", "back");
  }

  @Test
  void aFullBatchWaitsWhileTheCallersOwnInsertTakesTheOnlySlot() throws Exception {
    // maxConcurrentInserts 1: the caller writing its own batch holds it, so the full batch behind
    // it must not go beside it from a flusher
    CountDownLatch secondWriter = new CountDownLatch(1);
    AtomicInteger inWriter = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    try (GroupCommitBatcher batcher =
        batcher(
            policy().maxRows(3).build(),
            batch -> {
              if (mostAtOnce.accumulateAndGet(inWriter.incrementAndGet(), Math::max) > 1
                  || !batches.isEmpty()) {
                secondWriter.countDown();
              }
              recordHoldingTheFirst(batch);
              inWriter.decrementAndGet();
            })) {
      offerFromAnotherThread(batcher, message("lead"));
      await(firstWriting);
      List.of("f1", "f2", "f3").forEach(id -> batcher.offer(message(id)));
      // a flusher that may go would be in the writer within microseconds
      assertThat(secondWriter.await(300, TimeUnit.MILLISECONDS)).isFalse();
      releaseFirst.countDown();
      assertThat(batcher.drain(PATIENT, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(mostAtOnce).hasValue(1);
    assertThat(batches).hasSize(2);
    assertThat(batches.get(1))
        .extracting(m -> m.message().messageId())
        .containsExactly("f1", "f2", "f3");
  }

  @Test
  void theBatchGoesWithoutTheRequestsThatDoNotComeBackOnceTwiceTheInsertHasPassed()
      throws Exception {
    try (GroupCommitBatcher batcher = batcher(policy().build(), this::recordHoldingAFirstOf3Ms)) {
      offerFromAnotherThread(batcher, message("a"));
      await(firstWriting);
      PendingMessage waiting = message("waiting");
      batcher.offer(waiting);
      releaseFirst.countDown();
      awaitWaiting(batcher, 1);
      // "a" is answered and never comes back; "waiting" waits 6 ms, twice the INSERT
      batcher.wake();
      assertThat(waiting.answer()).isNotDone();
      now.addAndGet(6_000_000);
      batcher.wake();
      assertThat(waiting.answer().get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
    }
  }

  @Test
  void aLargeBatchDoesNotWaitForItsLastFewStragglers() throws Exception {
    try (GroupCommitBatcher batcher =
        batcher(
            policy().maxPendingMessages(1000).build(),
            batch -> {
              now.addAndGet(3_000_000); // every INSERT takes 3 ms
              recordHoldingTheFirst(batch);
            })) {
      offerFromAnotherThread(batcher, message("blocker"));
      await(firstWriting);
      for (int i = 0; i < 39; i++) {
        batcher.offer(message("a" + i));
      }
      releaseFirst.countDown();
      awaitWaiting(batcher, 39);
      batcher.offer(message("blocker-back")); // the 40 go together, written by this caller
      assertThat(batches).hasSize(2);
      // 40 answered: 38 are expected back (two may straggle); the clock stands still, so only
      // the 38th arrival can send the batch
      for (int i = 0; i < 37; i++) {
        batcher.offer(message("b" + i));
      }
      assertThat(batches).hasSize(2);
      batcher.offer(message("b37"));
      assertThat(batches).hasSize(3);
    }
    assertThat(batches.get(1)).hasSize(40);
    assertThat(batches.get(2)).hasSize(38);
  }

  @Test
  void beyondTheWaitingBoundOffersAreRefusedAtOnce() throws Exception {
    try (GroupCommitBatcher batcher =
        batcher(policy().maxPendingMessages(2).build(), this::recordHoldingTheFirst)) {
      offerFromAnotherThread(batcher, message("1")); // held in the writer by its own caller
      awaitWaiting(batcher, 1);
      assertThat(batcher.offer(message("2"))).isEqualTo(GroupCommitBatcher.Refusal.NONE);
      assertThat(batcher.offer(message("3"))).isEqualTo(GroupCommitBatcher.Refusal.FULL);
      releaseFirst.countDown();
      assertThat(batcher.drain(PATIENT, TimeUnit.SECONDS)).isTrue();
      assertThat(batcher.offer(message("4"))).isEqualTo(GroupCommitBatcher.Refusal.CLOSING);
    }
  }

  @Test
  void aWriterThatThrowsStillAnswersEveryMessage() throws Exception {
    try (GroupCommitBatcher batcher =
        batcher(
            policy().maxPendingMessages(10).build(),
            batch -> {
              throw new IllegalStateException("bug");
            })) {
      PendingMessage message = message("1");
      batcher.offer(message);
      assertThat(message.answer().get(PATIENT, TimeUnit.SECONDS))
          .isEqualTo(PushOutcome.UNAVAILABLE);
    }
  }

  /** Offers on a thread of its own: the caller that writes the batch may be held in the writer. */
  private static void offerFromAnotherThread(GroupCommitBatcher batcher, PendingMessage message) {
    Thread caller = new Thread(() -> batcher.offer(message));
    caller.setDaemon(true);
    caller.start();
  }

  /** Until {@code count} flushers wait on the batcher: any woken has looked at the queue again. */
  private static void awaitFlushersWaiting(GroupCommitBatcher batcher, int count) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENT);
    while (batcher.flushersWaiting() != count) {
      assertThat(System.nanoTime()).as("flushers waiting").isLessThan(deadline);
      Thread.yield();
    }
  }

  @Test
  void aFlusherKilledByAnErrorAnswersItsBatch503RefusesNewMessagesAndSaysWhy() throws Exception {
    try (GroupCommitBatcher batcher =
        batcher(
            policy().linger(Duration.ofMillis(10)).build(),
            batch -> {
              throw new StackOverflowError("injected");
            })) {
      PendingMessage first = message("1");
      assertThat(batcher.offer(first)).isEqualTo(GroupCommitBatcher.Refusal.NONE);
      now.addAndGet(10_000_000); // the linger has passed: a flusher takes the batch
      batcher.wake();
      assertThat(first.answer().get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.UNAVAILABLE);
      assertThat(batcher.flusherDeath()).containsInstanceOf(StackOverflowError.class);
      assertThat(batcher.offer(message("2"))).isEqualTo(GroupCommitBatcher.Refusal.CLOSING);
    }
  }

  @Test
  void aCallerThatWritesItsBatchIntoAnErrorGetsItAndTheBatcherRefusesNewMessages()
      throws Exception {
    try (GroupCommitBatcher batcher =
        batcher(
            policy().build(),
            batch -> {
              throw new StackOverflowError("injected");
            })) {
      PendingMessage first = message("1");
      CompletableFuture<Throwable> thrown = new CompletableFuture<>();
      Thread caller =
          new Thread(
              () -> {
                try {
                  batcher.offer(first);
                  thrown.complete(null);
                } catch (Throwable t) {
                  thrown.complete(t);
                }
              });
      caller.start();
      assertThat(thrown.get(PATIENT, TimeUnit.SECONDS)).isInstanceOf(StackOverflowError.class);
      assertThat(first.answer()).isCompletedWithValue(PushOutcome.UNAVAILABLE);
      assertThat(batcher.flusherDeath()).containsInstanceOf(StackOverflowError.class);
      assertThat(batcher.offer(message("2"))).isEqualTo(GroupCommitBatcher.Refusal.CLOSING);
    }
  }
}
