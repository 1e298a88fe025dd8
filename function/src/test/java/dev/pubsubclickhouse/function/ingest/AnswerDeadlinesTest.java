package dev.pubsubclickhouse.function.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class AnswerDeadlinesTest {
  @Test
  void aSweepAnswers503OnlyWhereTheDeadlineHasPassed() throws Exception {
    AnswerDeadlines overdue = new AnswerDeadlines(Duration.ofMillis(1));
    AnswerDeadlines patient = new AnswerDeadlines(Duration.ofHours(1));
    CompletableFuture<PushOutcome> late = new CompletableFuture<>();
    CompletableFuture<PushOutcome> waiting = new CompletableFuture<>();
    overdue.watch(late, System.nanoTime());
    patient.watch(waiting, System.nanoTime());
    Thread.sleep(5);

    overdue.sweep();
    patient.sweep();

    assertThat(late).isCompletedWithValue(PushOutcome.UNAVAILABLE);
    assertThat(waiting).isNotDone();
    assertThat(overdue.watched()).isZero();
    assertThat(patient.watched()).isOne();
  }

  /**
   * The time counts from the request's arrival: routing, a schema fetch or a new column before the
   * batch may have used it all, and then the message must not be batched at all.
   */
  @Test
  void theTimeCountsFromArrivalNotFromBatching() {
    AnswerDeadlines deadlines = new AnswerDeadlines(Duration.ofSeconds(10));
    long arrivedLongAgo = System.nanoTime() - Duration.ofSeconds(11).toNanos();
    CompletableFuture<PushOutcome> late = new CompletableFuture<>();

    assertThat(deadlines.expired(arrivedLongAgo)).isTrue();
    assertThat(deadlines.expired(System.nanoTime())).isFalse();
    deadlines.watch(late, arrivedLongAgo);
    deadlines.sweep();

    assertThat(late).isCompletedWithValue(PushOutcome.UNAVAILABLE);
  }

  @Test
  void anAnswerFromTheBatchStandsAndIsForgottenAtTheNextSweep() throws Exception {
    AnswerDeadlines deadlines = new AnswerDeadlines(Duration.ofMillis(1));
    CompletableFuture<PushOutcome> stored = new CompletableFuture<>();
    deadlines.watch(stored, System.nanoTime());
    stored.complete(PushOutcome.STORED);
    Thread.sleep(5);

    deadlines.sweep();

    assertThat(stored).isCompletedWithValue(PushOutcome.STORED);
    assertThat(deadlines.watched()).isZero();
  }

  @Test
  void answeredRequestsBehindAWaitingOneAreForgottenToo() {
    AnswerDeadlines deadlines = new AnswerDeadlines(Duration.ofHours(1));
    CompletableFuture<PushOutcome> stuck = new CompletableFuture<>();
    deadlines.watch(stuck, System.nanoTime());
    for (int i = 0; i < 1000; i++) {
      CompletableFuture<PushOutcome> answered = new CompletableFuture<>();
      deadlines.watch(answered, System.nanoTime());
      answered.complete(PushOutcome.STORED);
    }

    deadlines.sweep();

    assertThat(deadlines.watched()).isOne();
    assertThat(stuck).isNotDone();
  }

  @Test
  void atShutdownEveryWaitingRequestIsAnswered503() {
    AnswerDeadlines deadlines = new AnswerDeadlines(Duration.ofHours(1));
    CompletableFuture<PushOutcome> waiting = new CompletableFuture<>();
    deadlines.watch(waiting, System.nanoTime());

    deadlines.expireAll();

    assertThat(waiting).isCompletedWithValue(PushOutcome.UNAVAILABLE);
    assertThat(deadlines.watched()).isZero();
  }
}
