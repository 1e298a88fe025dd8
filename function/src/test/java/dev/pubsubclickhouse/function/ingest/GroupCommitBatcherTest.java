package dev.pubsubclickhouse.function.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.function.envelope.PushMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Batch formation on its own; the writer here records batches instead of writing them. */
class GroupCommitBatcherTest {
  private final List<List<PendingMessage>> batches = new CopyOnWriteArrayList<>();

  private static BatchPolicy policy(
      int maxRows, long lingerMillis, long maxWaitMillis, int maxPending) {
    return new BatchPolicy(
        maxRows,
        1 << 20,
        Duration.ofMillis(maxWaitMillis),
        Duration.ofMillis(lingerMillis),
        1,
        10_000,
        1 << 30,
        maxPending,
        Duration.ofSeconds(5));
  }

  private static PendingMessage message(String id) {
    return new PendingMessage(
        new PushMessage(new byte[0], Map.of(), id, null, null, null, null),
        EncodedRows.of(new byte[] {1}, 0, 1, 1));
  }

  private void record(List<PendingMessage> batch) {
    batches.add(List.copyOf(batch));
    batch.forEach(m -> m.answer().complete(PushOutcome.STORED));
  }

  @Test
  void aFullBatchGoesAtOnceAndTheRestFollows() throws Exception {
    try (GroupCommitBatcher batcher =
        new GroupCommitBatcher(policy(3, 10_000, 10_000, 100), this::record)) {
      List<PendingMessage> messages =
          List.of(message("1"), message("2"), message("3"), message("4"));
      messages.forEach(
          m -> assertThat(batcher.offer(m)).isEqualTo(GroupCommitBatcher.Refusal.NONE));
      messages.get(2).answer().get(2, TimeUnit.SECONDS);
      assertThat(batches.get(0))
          .extracting(m -> m.message().messageId())
          .containsExactly("1", "2", "3");
      assertThat(batcher.drain(2, TimeUnit.SECONDS)).isTrue();
      assertThat(batches.get(1)).extracting(m -> m.message().messageId()).containsExactly("4");
    }
  }

  @Test
  void aLoneMessageGoesAfterTheLingerNotTheMaxWait() throws Exception {
    try (GroupCommitBatcher batcher =
        new GroupCommitBatcher(policy(1000, 5, 60_000, 100), this::record)) {
      PendingMessage lone = message("lone");
      long start = System.nanoTime();
      batcher.offer(lone);
      assertThat(lone.answer().get(2, TimeUnit.SECONDS)).isEqualTo(PushOutcome.STORED);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    }
  }

  @Test
  void whileAnInsertIsInFlightNewMessagesGatherForTheNext() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (GroupCommitBatcher batcher =
        new GroupCommitBatcher(
            policy(1000, 1, 60_000, 100),
            batch -> {
              if (batches.isEmpty()) {
                await(release);
              }
              record(batch);
            })) {
      PendingMessage first = message("first");
      batcher.offer(first);
      Thread.sleep(50); // the first batch is now held inside the writer
      for (int i = 0; i < 5; i++) {
        batcher.offer(message("next-" + i));
      }
      Thread.sleep(50);
      release.countDown();
      assertThat(batcher.drain(2, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(batches).hasSize(2);
    assertThat(batches.get(0)).hasSize(1);
    assertThat(batches.get(1)).hasSize(5);
  }

  @Test
  void beyondTheWaitingBoundOffersAreRefusedAtOnce() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (GroupCommitBatcher batcher =
        new GroupCommitBatcher(
            policy(1000, 1, 60_000, 2),
            batch -> {
              await(release);
              record(batch);
            })) {
      assertThat(batcher.offer(message("1"))).isEqualTo(GroupCommitBatcher.Refusal.NONE);
      assertThat(batcher.offer(message("2"))).isEqualTo(GroupCommitBatcher.Refusal.NONE);
      assertThat(batcher.offer(message("3"))).isEqualTo(GroupCommitBatcher.Refusal.FULL);
      release.countDown();
      assertThat(batcher.drain(2, TimeUnit.SECONDS)).isTrue();
      assertThat(batcher.offer(message("4"))).isEqualTo(GroupCommitBatcher.Refusal.CLOSING);
    }
  }

  @Test
  void aWriterThatThrowsStillAnswersEveryMessage() throws Exception {
    try (GroupCommitBatcher batcher =
        new GroupCommitBatcher(
            policy(1000, 1, 60_000, 10),
            batch -> {
              throw new IllegalStateException("bug");
            })) {
      PendingMessage message = message("1");
      batcher.offer(message);
      assertThat(message.answer().get(2, TimeUnit.SECONDS)).isEqualTo(PushOutcome.UNAVAILABLE);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aFlusherKilledByAnErrorAnswersItsBatch503RefusesNewMessagesAndSaysWhy() throws Exception {
    try (GroupCommitBatcher batcher =
        new GroupCommitBatcher(
            policy(1, 0, 10_000, 100),
            batch -> {
              throw new StackOverflowError("injected");
            })) {
      PendingMessage first = message("1");
      assertThat(batcher.offer(first)).isEqualTo(GroupCommitBatcher.Refusal.NONE);
      assertThat(first.answer().get(2, TimeUnit.SECONDS)).isEqualTo(PushOutcome.UNAVAILABLE);
      assertThat(batcher.flusherDeath()).containsInstanceOf(StackOverflowError.class);
      assertThat(batcher.offer(message("2"))).isEqualTo(GroupCommitBatcher.Refusal.CLOSING);
    }
  }
}
