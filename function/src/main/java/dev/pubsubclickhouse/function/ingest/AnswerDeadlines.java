package dev.pubsubclickhouse.function.ingest;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;

/**
 * Answers {@link PushOutcome#UNAVAILABLE} (503) to every request whose batch has not answered it
 * within the answer timeout. One periodic sweep ({@link #sweep}, every {@link #SWEEP_INTERVAL})
 * keeps every deadline, to within one sweep interval. So a waiting request parks without a timer of
 * its own. A timed wait would cost a timer insertion, a cancellation and a wake-up of the timer
 * thread per request, a large share of the service's CPU at tens of thousands of requests per
 * second.
 */
public final class AnswerDeadlines {
  /** How often {@link #sweep} should run, and so how late a deadline may be kept. */
  public static final Duration SWEEP_INTERVAL = Duration.ofMillis(100);

  private record Watched(long deadlineNanos, CompletableFuture<PushOutcome> answer) {}

  private final long timeoutNanos;
  private final ConcurrentLinkedQueue<Watched> watched = new ConcurrentLinkedQueue<>();

  public AnswerDeadlines(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  /**
   * Gives {@code answer} until the timeout from {@code arrivedNanos} (System.nanoTime()).
   *
   * @return that deadline, on the same clock
   */
  long watch(CompletableFuture<PushOutcome> answer, long arrivedNanos) {
    long deadline = arrivedNanos + timeoutNanos;
    watched.add(new Watched(deadline, answer));
    return deadline;
  }

  /** True when a request that arrived at {@code arrivedNanos} has no time left. */
  boolean expired(long arrivedNanos) {
    return System.nanoTime() - arrivedNanos >= timeoutNanos;
  }

  /**
   * Answers 503 where the deadline has passed and forgets the answered: what stays watched is only
   * what is still waiting.
   */
  public void sweep() {
    long now = System.nanoTime();
    answerUnavailable(entry -> now - entry.deadlineNanos() >= 0);
  }

  /** Answers 503 to every request still waiting, whatever its deadline (at shutdown). */
  public void expireAll() {
    answerUnavailable(entry -> true);
  }

  /** Answers 503 where {@code due}, and stops watching every answered request. */
  private void answerUnavailable(Predicate<Watched> due) {
    watched.removeIf(
        entry -> {
          if (due.test(entry)) {
            entry.answer().complete(PushOutcome.UNAVAILABLE);
          }
          return entry.answer().isDone();
        });
  }

  /** Requests still watched (answered ones until the next sweep). */
  int watched() {
    return watched.size();
  }
}
