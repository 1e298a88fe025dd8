package dev.pubsubclickhouse.function.ingest;

import static dev.pubsubclickhouse.function.ingest.BatcherFixtures.PATIENT;
import static dev.pubsubclickhouse.function.ingest.BatcherFixtures.await;
import static dev.pubsubclickhouse.function.ingest.BatcherFixtures.awaitWaiting;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.schema.TableName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The threads that wait for their answers in the batcher ({@link GroupCommitBatcher#answerOf})
 * write the batches themselves: who writes is asserted by thread, and what is written by value.
 */
class GroupCommitLeaderTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final List<List<String>> batches = new CopyOnWriteArrayList<>();
  private final List<Thread> writers = new CopyOnWriteArrayList<>();

  private static BatchPolicy.Builder policy() {
    return BatcherFixtures.policy().maxPendingMessages(10_000);
  }

  private void record(List<PendingMessage> batch) {
    writers.add(Thread.currentThread());
    batches.add(batch.stream().map(m -> m.message().messageId()).toList());
    batch.forEach(m -> m.answer().complete(PushOutcome.STORED));
  }

  /** On the test's clock, and a pace of zero. */
  private GroupCommitBatcher batcher(
      BatchPolicy policy, boolean severalTables, Consumer<List<PendingMessage>> writer) {
    return new GroupCommitBatcher(policy, table -> 0, severalTables, now::get, writer);
  }

  private final CountDownLatch firstWriting = new CountDownLatch(1);
  private final CountDownLatch releaseFirst = new CountDownLatch(1);

  /**
   * Holds a writer in the first INSERT, which takes 3 ms on the batcher's clock (past the pace),
   * until {@link #releaseFirst}: true for the first batch, false for every later one.
   */
  private boolean holdsFirstInsert() {
    if (!batches.isEmpty()) {
      return false;
    }
    now.addAndGet(3_000_000);
    firstWriting.countDown();
    await(releaseFirst);
    return true;
  }

  /** A request's thread: offers its message and waits for the answer in the batcher. */
  private static final class Request extends Thread {
    final PendingMessage message;
    final CompletableFuture<PushOutcome> outcome = new CompletableFuture<>();
    private final GroupCommitBatcher batcher;

    Request(GroupCommitBatcher batcher, PendingMessage message) {
      super("request-" + message.message().messageId());
      this.batcher = batcher;
      this.message = message;
      setDaemon(true);
    }

    @Override
    public void run() {
      message.waitsInBatcher();
      GroupCommitBatcher.Refusal refusal = batcher.offer(message);
      if (refusal != GroupCommitBatcher.Refusal.NONE) {
        outcome.complete(PushOutcome.OVERLOADED);
        return;
      }
      outcome.complete(batcher.answerOf(message));
    }
  }

  private Request lead;
  private final List<Request> followers = new ArrayList<>();

  @Test
  void aBatchDueWhenAnInsertEndsIsWrittenByTheThreadOfItsFirstMessage() throws Exception {
    try (GroupCommitBatcher batcher =
        batcher(
            policy().maxRows(3).build(),
            false,
            batch -> {
              holdsFirstInsert();
              record(batch);
            })) {
      lead = new Request(batcher, PendingMessages.of("lead", now.get()));
      lead.start();
      await(firstWriting);
      // Three followers fill the next batch while the only slot is taken, one after the other so
      // that f1 is its first message.
      for (String id : List.of("f1", "f2", "f3")) {
        Request follower = new Request(batcher, PendingMessages.of(id, now.get()));
        followers.add(follower);
        follower.start();
        awaitWaiting(batcher, followers.size() + 1);
      }
      releaseFirst.countDown();
      for (Request request : followers) {
        assertThat(request.outcome.get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
      }
      assertThat(lead.outcome.get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
    }
    assertThat(batches).containsExactly(List.of("lead"), List.of("f1", "f2", "f3"));
    assertThat(writers).containsExactly(lead, followers.get(0));
  }

  @Test
  void anotherTablesDueBatchGoesToTheThreadOfItsFirstMessageNotToAFlusher() throws Exception {
    // The first request of "clicks" arrives while its table's batch cannot go: the only slot is
    // taken by "events". When that INSERT ends, the clicks batch (full at one row) is due and goes
    // to that request.
    TableName events = new TableName("db", "events");
    TableName clicks = new TableName("db", "clicks");
    try (GroupCommitBatcher batcher =
        batcher(
            policy().maxRows(1).build(),
            true,
            batch -> {
              holdsFirstInsert();
              record(batch);
            })) {
      Request first = new Request(batcher, PendingMessages.to(events, "e1"));
      first.start();
      await(firstWriting);
      Request click = new Request(batcher, PendingMessages.to(clicks, "c1"));
      click.start();
      awaitWaiting(batcher, 2);
      releaseFirst.countDown();
      assertThat(click.outcome.get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
      assertThat(first.outcome.get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
    }
    assertThat(batches).containsExactly(List.of("e1"), List.of("c1"));
    assertThat(writers).extracting(Thread::getName).containsExactly("request-e1", "request-c1");
  }

  @Test
  void aBatchHandedToAThreadThatStoppedWaitingIsWrittenByTheThreadThatHandsIt() {
    PendingMessage message = PendingMessages.of("m", now.get());
    message.waitsInBatcher();
    assertThat(message.mayLead()).isTrue();
    message.answer().complete(PushOutcome.UNAVAILABLE); // its deadline answered it
    assertThat(message.resign()).isTrue();
    assertThat(message.mayLead()).isFalse(); // a batch it heads goes elsewhere at once
    assertThat(message.lead(List.of(message))).isFalse();
    assertThat(message.takeLead()).isNull();
  }

  @Test
  void underConcurrentRequestsEveryMessageIsWrittenOnceAndFollowersShareBatches() throws Exception {
    int threads = 12;
    int perThread = 150;
    Map<String, Integer> written = new ConcurrentHashMap<>();
    try (GroupCommitBatcher batcher =
        new GroupCommitBatcher(
            policy().maxRows(7).maxConcurrentInserts(2).maxWait(Duration.ofMillis(20)).build(),
            table -> 0,
            false,
            batch -> {
              batch.forEach(m -> written.merge(m.message().messageId(), 1, Integer::sum));
              Thread.onSpinWait();
              record(batch);
            })) {
      List<Thread> clients = new ArrayList<>();
      Map<String, PushOutcome> outcomes = new ConcurrentHashMap<>();
      for (int t = 0; t < threads; t++) {
        int client = t;
        Thread thread =
            new Thread(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    Request request =
                        new Request(
                            batcher, PendingMessages.of(client + "-" + i, System.nanoTime()));
                    request.run(); // on this client's thread, one request after another
                    outcomes.put(request.message.message().messageId(), request.outcome.join());
                  }
                });
        thread.setDaemon(true);
        clients.add(thread);
        thread.start();
      }
      for (Thread client : clients) {
        client.join(TimeUnit.SECONDS.toMillis(PATIENT));
      }
      Map<String, Integer> once = new HashMap<>();
      Map<String, PushOutcome> stored = new HashMap<>();
      for (int t = 0; t < threads; t++) {
        for (int i = 0; i < perThread; i++) {
          once.put(t + "-" + i, 1);
          stored.put(t + "-" + i, PushOutcome.STORED);
        }
      }
      assertThat(written).isEqualTo(once);
      assertThat(outcomes).isEqualTo(stored);
      assertThat(batches.stream().mapToInt(List::size).sum()).isEqualTo(threads * perThread);
      assertThat(batches.size()).isLessThan(threads * perThread); // followers joined batches
      assertThat(batcher.waiting()).isZero();
    }
  }

  @Test
  void aWrittenMessageKnowsWhenItsBatchWasTakenAndWhenItWasAnswered() throws Exception {
    long before = System.nanoTime();
    try (GroupCommitBatcher batcher =
        batcher(
            policy().build(),
            false,
            batch -> {
              now.addAndGet(3_000_000);
              record(batch);
            })) {
      PendingMessage message = PendingMessages.of("m", now.get());
      long taken = now.get();
      message.waitsInBatcher();
      batcher.offer(message);
      assertThat(batcher.answerOf(message)).isEqualTo(PushOutcome.STORED);
      assertThat(message.takenNanos()).isEqualTo(taken); // on the batcher's clock
      assertThat(message.answeredNanos()).isBetween(before, System.nanoTime());
    }
  }

  @Test
  void aBatchGoesToItsWaiterWithTheLastDeadlineSoThatNoEarlierAnswerWaitsForItsInsert()
      throws Exception {
    CountDownLatch secondWriting = new CountDownLatch(1);
    CountDownLatch releaseSecond = new CountDownLatch(1);
    try (GroupCommitBatcher batcher =
        batcher(
            policy().maxRows(3).build(),
            false,
            batch -> {
              if (!holdsFirstInsert()) {
                secondWriting.countDown();
                await(releaseSecond);
              }
              record(batch);
            })) {
      lead = new Request(batcher, PendingMessages.of("lead", now.get()));
      lead.start();
      await(firstWriting);
      // f1 arrived first; f2's request has the most time left of the three (its deadline is last).
      long later = System.nanoTime() + TimeUnit.HOURS.toNanos(1);
      Map<String, Long> deadlines = Map.of("f1", later, "f2", later + 2_000, "f3", later + 1_000);
      for (String id : List.of("f1", "f2", "f3")) {
        PendingMessage message = PendingMessages.of(id, now.get());
        message.answerBy(deadlines.get(id));
        Request follower = new Request(batcher, message);
        followers.add(follower);
        follower.start();
        awaitWaiting(batcher, followers.size() + 1);
      }
      releaseFirst.countDown();
      await(secondWriting);
      // f1's deadline passes while its batch's INSERT runs (the sweep answers it 503): its request
      // returns then, not when an INSERT that may run until f2's deadline ends.
      followers.get(0).message.answer().complete(PushOutcome.UNAVAILABLE);
      assertThat(followers.get(0).outcome.get(10, TimeUnit.SECONDS)) // the INSERT still runs
          .isEqualTo(PushOutcome.UNAVAILABLE);
      releaseSecond.countDown();
      for (Request request : followers.subList(1, 3)) {
        assertThat(request.outcome.get(PATIENT, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
      }
    }
    assertThat(batches).containsExactly(List.of("lead"), List.of("f1", "f2", "f3"));
    assertThat(writers).containsExactly(lead, followers.get(1));
  }

  @Test
  void aBatchHandedToAnInterruptedThreadIsWrittenWithoutTheInterrupt() throws Exception {
    List<Boolean> interruptedWhileWriting = new CopyOnWriteArrayList<>();
    try (GroupCommitBatcher batcher =
        batcher(
            policy().maxRows(1).build(),
            false,
            batch -> {
              holdsFirstInsert();
              interruptedWhileWriting.add(Thread.currentThread().isInterrupted());
              record(batch);
            })) {
      lead = new Request(batcher, PendingMessages.of("blocker", now.get()));
      lead.start();
      await(firstWriting);
      PendingMessage mine = PendingMessages.of("mine", now.get());
      mine.waitsInBatcher();
      assertThat(batcher.offer(mine))
          .isEqualTo(GroupCommitBatcher.Refusal.NONE); // the slot is taken
      releaseFirst.countDown();
      lead.join(
          TimeUnit.SECONDS.toMillis(PATIENT)); // its INSERT ended: mine's batch is handed here
      // An interrupt (a server stopping) must not fail the INSERT of the batch this thread leads:
      // the others in it would be answered 503 for it.
      Thread.currentThread().interrupt();
      assertThat(batcher.answerOf(mine)).isEqualTo(PushOutcome.STORED);
      assertThat(Thread.interrupted()).as("the interrupt is kept for the caller").isTrue();
    }
    assertThat(batches).containsExactly(List.of("blocker"), List.of("mine"));
    assertThat(writers).containsExactly(lead, Thread.currentThread());
    assertThat(interruptedWhileWriting).containsExactly(false, false);
  }

  @Test
  void aLeaderThatAnswersItsOwnMessageLeavesNoWakeUpBehind() throws Exception {
    try (GroupCommitBatcher batcher = batcher(policy().build(), false, this::record)) {
      PendingMessage message = PendingMessages.of("m", now.get());
      message.waitsInBatcher();
      LockSupport.parkNanos(1); // drops a wake-up this thread may hold from before
      batcher.offer(message); // written at once, by this thread, which answers itself
      assertThat(batcher.answerOf(message)).isEqualTo(PushOutcome.STORED);
    }
    assertThat(writers).containsExactly(Thread.currentThread());
    // The thread goes back to its pool: a wake-up left behind would end its next wait for nothing.
    long start = System.nanoTime();
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
    assertThat(System.nanoTime() - start)
        .as("parked until its timeout, not woken")
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
  }

  @Test
  void anAnswerCompletedAgainWakesNoThread() throws Exception {
    PendingMessage message = PendingMessages.of("m", now.get());
    message.waitsInBatcher();
    LockSupport.parkNanos(1); // drops a wake-up this thread may hold from before
    onAnotherThread(() -> message.answer().complete(PushOutcome.STORED));
    LockSupport.park(); // the completion's wake-up
    // The writers complete every answer of a batch again, a no-op, when its thread may have gone
    // on to another request: a wake-up then is a spurious one for whatever that thread waits on.
    onAnotherThread(
        () -> {
          message.answer().complete(PushOutcome.UNAVAILABLE);
          message.answer().completeExceptionally(new IllegalStateException("late"));
        });
    long start = System.nanoTime();
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
    assertThat(System.nanoTime() - start)
        .as("parked until its timeout, not woken")
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
    assertThat(message.answer()).isCompletedWithValue(PushOutcome.STORED);
  }

  private static void onAnotherThread(Runnable action) throws InterruptedException {
    Thread thread = new Thread(action);
    thread.start();
    thread.join(TimeUnit.SECONDS.toMillis(PATIENT));
  }
}
