package dev.pubsubclickhouse.function.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The batch rule as a function of the queue and the clock: no threads, no sleeps. */
class GroupCommitRuleTest {
  private static final long MS = 1_000_000;
  private static final long NEVER = Long.MIN_VALUE;

  private static final GroupCommitRule.ExpectedBack NOTHING_BACK =
      new GroupCommitRule.ExpectedBack(0, NEVER, 0);

  /** At most 2 INSERTs at once. */
  private static BatchPolicy policy(int maxRows, long maxWaitMillis, long lingerMillis) {
    return BatchPolicy.builder()
        .maxRows(maxRows)
        .maxBytes(1 << 20)
        .maxWait(Duration.ofMillis(maxWaitMillis))
        .linger(Duration.ofMillis(lingerMillis))
        .maxConcurrentInserts(2)
        .build();
  }

  private final GroupCommitRule rule = new GroupCommitRule(policy(100, 1000, 0));

  /**
   * A table with {@code messages} one-row messages of 10 bytes queued, the first of which arrived
   * at {@code since}, and {@code inFlight} INSERTs in flight.
   */
  private static GroupCommitRule.TableState table(int messages, long since, int inFlight) {
    return new GroupCommitRule.TableState(messages, messages, 10L * messages, since, inFlight);
  }

  /** An instance with {@code inFlight} INSERTs in flight, that never started one before. */
  private static GroupCommitRule.InstanceState instance(int inFlight) {
    return new GroupCommitRule.InstanceState(inFlight, false, NEVER, NOTHING_BACK, false);
  }

  /** As {@link #instance}, while a table with no INSERT in flight has messages that may go. */
  private static GroupCommitRule.InstanceState withAnIdleTableWaiting(int inFlight) {
    return new GroupCommitRule.InstanceState(inFlight, true, NEVER, NOTHING_BACK, false);
  }

  /** An instance with {@code inFlight} INSERTs in flight, the last one started at {@code start}. */
  private static GroupCommitRule.InstanceState startedAt(int inFlight, long start) {
    return new GroupCommitRule.InstanceState(inFlight, false, start, NOTHING_BACK, false);
  }

  /**
   * An instance with no INSERT in flight whose last one ended at {@code lastEnd}, expecting {@code
   * requests} back within {@code patience}.
   */
  private static GroupCommitRule.InstanceState expecting(
      int requests, long lastEnd, long patience) {
    return new GroupCommitRule.InstanceState(
        0,
        false,
        lastEnd - MS,
        new GroupCommitRule.ExpectedBack(requests, lastEnd, patience),
        false);
  }

  /** An instance shutting down, with {@code inFlight} INSERTs in flight. */
  private static GroupCommitRule.InstanceState closing(int inFlight, int expectedBack) {
    return new GroupCommitRule.InstanceState(
        inFlight,
        false,
        10 * MS,
        new GroupCommitRule.ExpectedBack(expectedBack, 10 * MS, MS),
        true);
  }

  private static GroupCommitRule.Decision waitFor(long nanos) {
    return GroupCommitRule.Decision.waitFor(nanos);
  }

  @Test
  void anEmptyQueueWaitsForASignal() {
    assertThat(rule.decide(table(0, 0, 0), instance(0), 5 * MS, 0))
        .isEqualTo(waitFor(GroupCommitRule.WAIT_FOR_SIGNAL));
  }

  @Test
  void withNoInsertInFlightALoneMessageGoesAtOnce() {
    assertThat(rule.decide(table(1, 10 * MS, 0), instance(0), 10 * MS, 0))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void whileAnInsertIsInFlightTheNextBatchGathersUntilItIsOverdue() {
    // 40 of the 1000 ms maxWait have passed: look again when it is overdue, or when signalled
    assertThat(rule.decide(table(5, 0, 1), instance(1), 40 * MS, 0)).isEqualTo(waitFor(960 * MS));
    assertThat(rule.decide(table(5, 0, 1), instance(1), 1000 * MS, 0))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void anotherTablesInsertInFlightTakesASlotAndHoldsUpNothingElse() {
    assertThat(rule.decide(table(5, 0, 0), instance(1), 1 * MS, 0))
        .isEqualTo(GroupCommitRule.Decision.SEND);
    // policy: at most 2 INSERTs at once, whichever tables they are for
    assertThat(rule.decide(table(5, 0, 0), instance(2), 1 * MS, 0))
        .isEqualTo(waitFor(GroupCommitRule.WAIT_FOR_SIGNAL));
  }

  @Test
  void theLastSlotIsKeptForATableWithNoInsertInFlightThatHasMessagesWaiting() {
    // policy: at most 2 INSERTs at once; this table's overdue batch, one of its INSERTs in flight
    assertThat(rule.decide(table(5, 0, 1), withAnIdleTableWaiting(1), 2000 * MS, 0))
        .isEqualTo(waitFor(GroupCommitRule.WAIT_FOR_SIGNAL));
    assertThat(rule.decide(table(5, 0, 1), instance(1), 2000 * MS, 0))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void aFullBatchGoesBesideTheInsertInFlight() {
    assertThat(rule.decide(table(100, 0, 1), instance(1), 1 * MS, 0))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void noBatchGoesWhileMaxConcurrentInsertsAreInFlightFullOverdueOrClosing() {
    // policy: at most 2 INSERTs at once
    GroupCommitRule.Decision untilOneEnds = waitFor(GroupCommitRule.WAIT_FOR_SIGNAL);
    assertThat(rule.decide(table(100, 0, 2), instance(2), 1 * MS, 0)).isEqualTo(untilOneEnds);
    assertThat(rule.decide(table(5, 0, 2), instance(2), 5000 * MS, 0)).isEqualTo(untilOneEnds);
    assertThat(rule.decide(table(3, 10 * MS, 1), closing(2, 0), 11 * MS, 0))
        .isEqualTo(untilOneEnds);
  }

  @Test
  void requestsExpectedBackAreWaitedForUntilThePatienceRunsOut() {
    // the last INSERT ended at 100 ms; 40 of its requests have not come back; patience 6 ms
    GroupCommitRule.TableState fifty = table(50, 99 * MS, 0);
    GroupCommitRule.InstanceState fortyBack = expecting(40, 100 * MS, 6 * MS);
    assertThat(rule.decide(fifty, fortyBack, 101 * MS, 0)).isEqualTo(waitFor(5 * MS));
    assertThat(rule.decide(fifty, fortyBack, 106 * MS, 0)).isEqualTo(GroupCommitRule.Decision.SEND);
    // once all are back the batch goes at once
    GroupCommitRule.InstanceState allBack = expecting(0, 100 * MS, 6 * MS);
    assertThat(rule.decide(table(90, 99 * MS, 0), allBack, 101 * MS, 0))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void waitingForRequestsExpectedBackNeverPassesMaxWaitNorHoldsAFullBatch() {
    // the last INSERT ended at 1000 ms and the patience is 1.6 s, but the oldest message (at 600
    // ms) is overdue at 1600 ms
    GroupCommitRule.TableState three = table(3, 600 * MS, 0);
    GroupCommitRule.InstanceState slow = expecting(5, 1000 * MS, 1600 * MS);
    assertThat(rule.decide(three, slow, 1001 * MS, 0)).isEqualTo(waitFor(599 * MS));
    assertThat(rule.decide(three, slow, 1600 * MS, 0)).isEqualTo(GroupCommitRule.Decision.SEND);
    assertThat(rule.decide(table(100, 1000 * MS, 0), expecting(5, 1000 * MS, 6 * MS), 1000 * MS, 0))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void insertsStartNoCloserThanThePace() {
    // the last INSERT started at 10 ms; 1 INSERT per 4 ms allowed
    GroupCommitRule.TableState one = table(1, 11 * MS, 0);
    assertThat(rule.decide(one, startedAt(0, 10 * MS), 11 * MS, 4 * MS)).isEqualTo(waitFor(3 * MS));
    assertThat(rule.decide(one, startedAt(0, 10 * MS), 14 * MS, 4 * MS))
        .isEqualTo(GroupCommitRule.Decision.SEND);
    // a full batch is paced too: the pace is the ceiling on INSERTs per second
    assertThat(rule.decide(table(100, 11 * MS, 1), startedAt(1, 10 * MS), 12 * MS, 4 * MS))
        .isEqualTo(waitFor(2 * MS));
  }

  @Test
  void lingerHoldsEveryBatchFromItsFirstMessage() {
    GroupCommitRule lingering = new GroupCommitRule(policy(100, 1000, 20));
    assertThat(lingering.decide(table(1, 10 * MS, 0), instance(0), 15 * MS, 0))
        .isEqualTo(waitFor(15 * MS));
    assertThat(lingering.decide(table(1, 10 * MS, 0), instance(0), 30 * MS, 0))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void closingSendsAtOnceWhateverThePace() {
    assertThat(rule.decide(table(3, 10 * MS, 1), closing(1, 7), 11 * MS, 1000 * MS))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }

  @Test
  void timesAreComparedAcrossTheWrapOfNanoTime() {
    long start = Long.MAX_VALUE - 2 * MS;
    GroupCommitRule.TableState one = table(1, start, 0);
    assertThat(rule.decide(one, startedAt(0, start), start + MS, 4 * MS))
        .isEqualTo(waitFor(3 * MS));
    assertThat(rule.decide(one, startedAt(0, start), start + 4 * MS, 4 * MS))
        .isEqualTo(GroupCommitRule.Decision.SEND);
  }
}
