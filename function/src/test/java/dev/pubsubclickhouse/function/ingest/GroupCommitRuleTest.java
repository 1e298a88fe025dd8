package dev.pubsubclickhouse.function.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The batch rule as a function of the queue and the clock: no threads, no sleeps. */
class GroupCommitRuleTest {
  private static final long MS = 1_000_000;
  private static final long NEVER = Long.MIN_VALUE;

  private static BatchPolicy policy(int maxRows, long maxWaitMillis, long lingerMillis) {
    return new BatchPolicy(
        maxRows,
        1 << 20,
        Duration.ofMillis(maxWaitMillis),
        Duration.ofMillis(lingerMillis),
        2,
        1000,
        1 << 30,
        1000,
        Duration.ofSeconds(5));
  }

  private final GroupCommitRule rule = new GroupCommitRule(policy(100, 1000, 0));

  /**
   * A queue with {@code messages} one-row messages, the first of which arrived at {@code since}.
   */
  private static GroupCommitRule.Queue queue(int messages, long since, int inFlight) {
    return new GroupCommitRule.Queue(
        messages,
        messages,
        10L * messages,
        since,
        inFlight,
        inFlight,
        false,
        NEVER,
        0,
        NEVER,
        0,
        false);
  }

  private static GroupCommitRule.Queue expecting(
      int messages, long since, int expectedBack, long lastEnd, long patience) {
    return new GroupCommitRule.Queue(
        messages,
        messages,
        10L * messages,
        since,
        0,
        0,
        false,
        lastEnd - MS,
        expectedBack,
        lastEnd,
        patience,
        false);
  }

  private static GroupCommitRule.Queue startedAt(GroupCommitRule.Queue q, long lastStart) {
    return new GroupCommitRule.Queue(
        q.messages(),
        q.rows(),
        q.bytes(),
        q.oldestEnqueuedNanos(),
        q.insertsInFlight(),
        q.tableInsertsInFlight(),
        q.idleTableWaiting(),
        lastStart,
        q.expectedBack(),
        q.lastInsertEndNanos(),
        q.patienceNanos(),
        q.closing());
  }

  private static GroupCommitRule.Decision waitFor(long nanos) {
    return GroupCommitRule.Decision.waitFor(nanos);
  }

  @Test
  void anEmptyQueueWaitsForASignal() {
    assertThat(rule.decide(queue(0, 0, 0), 5 * MS, 0))
        .isEqualTo(waitFor(GroupCommitRule.WAIT_FOR_SIGNAL));
  }

  @Test
  void withNoInsertInFlightALoneMessageGoesAtOnce() {
    assertThat(rule.decide(queue(1, 10 * MS, 0), 10 * MS, 0))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void whileAnInsertIsInFlightTheNextBatchGathersUntilItIsOverdue() {
    // 40 of the 1000 ms maxWait have passed: look again when it is overdue, or when signalled
    assertThat(rule.decide(queue(5, 0, 1), 40 * MS, 0)).isEqualTo(waitFor(960 * MS));
    assertThat(rule.decide(queue(5, 0, 1), 1000 * MS, 0)).isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void anotherTablesInsertInFlightTakesASlotAndHoldsUpNothingElse() {
    GroupCommitRule.Queue besideOne =
        new GroupCommitRule.Queue(5, 5, 50, 0, 1, 0, false, NEVER, 0, NEVER, 0, false);
    assertThat(rule.decide(besideOne, 1 * MS, 0)).isEqualTo(GroupCommitRule.Decision.SEND);
    // policy: at most 2 INSERTs at once, whichever tables they are for
    GroupCommitRule.Queue besideTwo =
        new GroupCommitRule.Queue(5, 5, 50, 0, 2, 0, false, NEVER, 0, NEVER, 0, false);
    assertThat(rule.decide(besideTwo, 1 * MS, 0))
        .isEqualTo(waitFor(GroupCommitRule.WAIT_FOR_SIGNAL));
  }

  @Test
  void theLastSlotIsKeptForATableWithNoInsertInFlightThatHasMessagesWaiting() {
    // policy: at most 2 INSERTs at once; this table's overdue batch, one of its INSERTs in flight
    GroupCommitRule.Queue anotherWaiting =
        new GroupCommitRule.Queue(5, 5, 50, 0, 1, 1, true, NEVER, 0, NEVER, 0, false);
    assertThat(rule.decide(anotherWaiting, 2000 * MS, 0))
        .isEqualTo(waitFor(GroupCommitRule.WAIT_FOR_SIGNAL));
    GroupCommitRule.Queue noneWaiting =
        new GroupCommitRule.Queue(5, 5, 50, 0, 1, 1, false, NEVER, 0, NEVER, 0, false);
    assertThat(rule.decide(noneWaiting, 2000 * MS, 0)).isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void aFullBatchGoesBesideTheInsertInFlight() {
    assertThat(rule.decide(queue(100, 0, 1), 1 * MS, 0)).isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void noBatchGoesWhileMaxConcurrentInsertsAreInFlightFullOverdueOrClosing() {
    // policy: at most 2 INSERTs at once
    GroupCommitRule.Decision untilOneEnds = waitFor(GroupCommitRule.WAIT_FOR_SIGNAL);
    assertThat(rule.decide(queue(100, 0, 2), 1 * MS, 0)).isEqualTo(untilOneEnds);
    assertThat(rule.decide(queue(5, 0, 2), 5000 * MS, 0)).isEqualTo(untilOneEnds);
    GroupCommitRule.Queue closing =
        new GroupCommitRule.Queue(3, 3, 30, 10 * MS, 2, 1, false, 10 * MS, 0, 10 * MS, MS, true);
    assertThat(rule.decide(closing, 11 * MS, 0)).isEqualTo(untilOneEnds);
  }

  @Test
  void requestsExpectedBackAreWaitedForUntilThePatienceRunsOut() {
    // the last INSERT ended at 100 ms; 40 of its requests have not come back; patience 6 ms
    GroupCommitRule.Queue waiting = expecting(50, 99 * MS, 40, 100 * MS, 6 * MS);
    assertThat(rule.decide(waiting, 101 * MS, 0)).isEqualTo(waitFor(5 * MS));
    assertThat(rule.decide(waiting, 106 * MS, 0)).isEqualTo(GroupCommitRule.Decision.SEND);
    // once all are back the batch goes at once
    GroupCommitRule.Queue allBack = expecting(90, 99 * MS, 0, 100 * MS, 6 * MS);
    assertThat(rule.decide(allBack, 101 * MS, 0)).isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void waitingForRequestsExpectedBackNeverPassesMaxWaitNorHoldsAFullBatch() {
    // the last INSERT ended at 1000 ms and the patience is 1.6 s, but the oldest message (at 600
    // ms) is overdue at 1600 ms
    GroupCommitRule.Queue slow = expecting(3, 600 * MS, 5, 1000 * MS, 1600 * MS);
    assertThat(rule.decide(slow, 1001 * MS, 0)).isEqualTo(waitFor(599 * MS));
    assertThat(rule.decide(slow, 1600 * MS, 0)).isEqualTo(GroupCommitRule.Decision.SEND);
    assertThat(rule.decide(expecting(100, 1000 * MS, 5, 1000 * MS, 6 * MS), 1000 * MS, 0))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void insertsStartNoCloserThanThePace() {
    // the last INSERT started at 10 ms; 1 INSERT per 4 ms allowed
    GroupCommitRule.Queue q = startedAt(queue(1, 11 * MS, 0), 10 * MS);
    assertThat(rule.decide(q, 11 * MS, 4 * MS)).isEqualTo(waitFor(3 * MS));
    assertThat(rule.decide(q, 14 * MS, 4 * MS)).isEqualTo(GroupCommitRule.Decision.SEND);
    // a full batch is paced too: the pace is the ceiling on INSERTs per second
    GroupCommitRule.Queue full = startedAt(queue(100, 11 * MS, 1), 10 * MS);
    assertThat(rule.decide(full, 12 * MS, 4 * MS)).isEqualTo(waitFor(2 * MS));
  }

  @Test
  void lingerHoldsEveryBatchFromItsFirstMessage() {
    GroupCommitRule lingering = new GroupCommitRule(policy(100, 1000, 20));
    assertThat(lingering.decide(queue(1, 10 * MS, 0), 15 * MS, 0)).isEqualTo(waitFor(15 * MS));
    assertThat(lingering.decide(queue(1, 10 * MS, 0), 30 * MS, 0))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void closingSendsAtOnceWhateverThePace() {
    GroupCommitRule.Queue closing =
        new GroupCommitRule.Queue(3, 3, 30, 10 * MS, 1, 1, false, 10 * MS, 7, 10 * MS, MS, true);
    assertThat(rule.decide(closing, 11 * MS, 1000 * MS)).isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void timesAreComparedAcrossTheWrapOfNanoTime() {
    long start = Long.MAX_VALUE - 2 * MS;
    GroupCommitRule.Queue q = startedAt(queue(1, start, 0), start);
    assertThat(rule.decide(q, start + MS, 4 * MS)).isEqualTo(waitFor(3 * MS));
    assertThat(rule.decide(q, start + 4 * MS, 4 * MS)).isEqualTo(GroupCommitRule.Decision.SEND);
  }
}
