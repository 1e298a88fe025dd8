package dev.pubsubclickhouse.function.flow;

import static dev.pubsubclickhouse.function.flow.FlowFixtures.load;
import static dev.pubsubclickhouse.function.flow.FlowFixtures.parts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Flow control reading by reading, on a clock the test moves: no threads, no queries. */
class FlowControlTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  /** 500 INSERTs/s per instance, 200 for the table, the pace at most 10 s. */
  private final FlowControl control = new FlowControl(500, 200, 10 * SECOND);

  private static TableLoad blocks(long blocks) {
    return load(1, blocks, 0, 0);
  }

  @Test
  void withoutPressureTheInstanceKeepsItsShareOfTheBudgetAsItsPace() {
    FlowControl.State state = control.observe(parts(4), 0, 0);
    assertThat(state.refusing()).isFalse();
    // the budget (200/s) is below the instance's ceiling (500/s): one INSERT per 5 ms at most
    assertThat(state.paceNanos()).isEqualTo(5 * MS);
    assertThat(new FlowControl(500, 0, 10 * SECOND).state().paceNanos()).isEqualTo(2 * MS);
  }

  @Test
  void underPressureThePaceDoublesWithEveryFivePercent() {
    assertThat(control.observe(parts(5), 0, 0).paceNanos()).isEqualTo(5 * MS);
    FlowControl.State sixty = control.observe(parts(6), 0, 10 * MS);
    assertThat(sixty.pressure()).isCloseTo(0.6, within(1e-9));
    assertThat(sixty.paceNanos()).isEqualTo(20 * MS);
    assertThat(control.observe(parts(7), 0, 20 * MS).paceNanos()).isEqualTo(80 * MS);
    assertThat(control.observe(parts(7), 0, 30 * MS).refusing()).isFalse();
  }

  @Test
  void nearTheLimitItRefusesAndResumesOnlyWellBelowIt() {
    assertThat(control.observe(parts(8), 0, 0).refusing()).isTrue();
    assertThat(control.observe(parts(7), 0, 10 * MS).refusing()).isTrue();
    FlowControl.State resumed = control.observe(parts(6), 0, 20 * MS);
    assertThat(resumed.refusing()).isFalse();
    assertThat(control.observe(parts(2), 0, 30 * MS).paceNanos()).isEqualTo(5 * MS);
  }

  @Test
  void delayedOrRejectedInsertsOnTheServerWhileUnderPressureRefuseAtOnce() {
    control.observe(load(5, 0, 3, 0), 0, 0);
    assertThat(control.observe(load(5, 0, 4, 0), 0, 10 * MS).refusing()).isTrue();
    FlowControl other = new FlowControl(500, 200, 10 * SECOND);
    other.observe(load(5, 0, 0, 7), 0, 0);
    assertThat(other.observe(load(5, 0, 0, 8), 0, 10 * MS).refusing()).isTrue();
    // a table far from its limits is not held back by another table's delays
    FlowControl calm = new FlowControl(500, 200, 10 * SECOND);
    calm.observe(load(1, 0, 3, 0), 0, 0);
    assertThat(calm.observe(load(1, 0, 9, 9), 0, 10 * MS).refusing()).isFalse();
  }

  /**
   * TRUNCATE (or dropping every partition) leaves no part, so no block number; the next part
   * carries the table's counter, however far it has gone. That jump is not new parts.
   */
  @Test
  void partsDroppedAndWrittenAgainAreNotCountedAsTheTablesWholeHistory() {
    control.observe(blocks(60_000), 0, 0);
    control.observe(load(0, 0, 0, 0), 100, 2 * SECOND); // truncated: no parts, no block number
    FlowControl.State after = control.observe(blocks(60_150), 250, 4 * SECOND);
    assertThat(after.tableInsertsPerSecond()).as("no rate from the jump").isLessThan(200.0);
    assertThat(after.allowance()).as("no cut for a jump of 60,150 blocks").isEqualTo(200.0);
    assertThat(after.paceNanos()).isEqualTo(5 * MS);
    // the rate is measured again from the first reading with parts: 150 new parts in 2 s
    FlowControl.State measured = control.observe(blocks(60_450), 400, 6 * SECOND);
    assertThat(measured.tableInsertsPerSecond()).isEqualTo(150.0);
    assertThat(measured.allowance()).isEqualTo(200.0);
  }

  /**
   * Dropping the partition that holds the newest block lowers the reading to another partition's;
   * the next part written there carries the table's counter again. The share the instance had
   * measured stays: neither cut by the jump nor reset to the whole budget by the fall.
   */
  @Test
  void theNewestPartitionDroppedNeitherCutsNorResetsTheShare() {
    control.observe(blocks(1_000), 0, 0);
    // 2 s: the table took 800 new parts (400/s, twice the budget), 200 of them ours: share 50/s
    assertThat(control.observe(blocks(1_800), 200, 2 * SECOND).allowance()).isEqualTo(50.0);
    FlowControl.State fell = control.observe(blocks(1_200), 300, 4 * SECOND); // newest dropped
    assertThat(fell.allowance()).as("not reset to the whole budget by the fall").isEqualTo(50.0);
    FlowControl.State jumped = control.observe(blocks(1_900), 400, 6 * SECOND);
    assertThat(jumped.allowance()).as("not cut by the counter's return").isEqualTo(50.0);
    assertThat(jumped.tableInsertsPerSecond()).isEqualTo(400.0);
    // measured again from there: 200 new parts in 2 s, 100 of them ours, under the budget: the
    // share grows in proportion (50/s of 100/s, so 100/s of the 200/s budget)
    FlowControl.State measured = control.observe(blocks(2_100), 500, 8 * SECOND);
    assertThat(measured.tableInsertsPerSecond()).isEqualTo(100.0);
    assertThat(measured.allowance()).isEqualTo(100.0);
  }

  @Test
  void aboveTheBudgetAnInsertingInstanceTakesItsProportionalShare() {
    control.observe(blocks(1_000), 0, 0);
    // 2 s later: the table took 800 new parts (400/s, twice the budget), 200 of them ours (100/s)
    FlowControl.State state = control.observe(blocks(1_800), 200, 2 * SECOND);
    assertThat(state.tableInsertsPerSecond()).isEqualTo(400.0);
    assertThat(state.allowance()).isEqualTo(50.0);
    assertThat(state.paceNanos()).isEqualTo(20 * MS);
  }

  @Test
  void anIdleInstanceKeepsItsAllowanceWhileOthersAreAboveTheBudget() {
    control.observe(blocks(0), 0, 0);
    assertThat(control.observe(blocks(2_000), 0, 2 * SECOND).allowance()).isEqualTo(200.0);
  }

  @Test
  void belowTheBudgetAllowancesGrowBackInProportionUpToTheBudget() {
    control.observe(blocks(0), 0, 0);
    control.observe(blocks(800), 200, 2 * SECOND); // cut to 50/s
    // now the table takes 100/s, this instance 40/s: it may take 40 * 200 / 100 = 80/s
    assertThat(control.observe(blocks(1_000), 280, 4 * SECOND).allowance()).isEqualTo(80.0);
    // an empty table: back to the whole budget
    assertThat(control.observe(blocks(1_000), 280, 6 * SECOND).allowance()).isEqualTo(200.0);
  }

  @Test
  void ratesAreMeasuredOverAtLeastASecond() {
    control.observe(blocks(0), 0, 0);
    FlowControl.State soon = control.observe(blocks(800), 200, 300 * MS);
    assertThat(soon.tableInsertsPerSecond()).isEqualTo(-1.0);
    assertThat(soon.allowance()).isEqualTo(200.0);
    assertThat(control.observe(blocks(1_600), 400, 2 * SECOND).allowance()).isEqualTo(50.0);
  }

  @Test
  void thePaceNeverExceedsItsBound() {
    FlowControl bounded = new FlowControl(500, 0, 50 * MS);
    assertThat(bounded.observe(parts(8), 0, 0).paceNanos()).isEqualTo(50 * MS);
  }

  @Test
  void anUnreadableTableCountsAsNoPressure() {
    control.observe(parts(9), 0, 0);
    FlowControl.State state = control.unknown();
    assertThat(state.refusing()).isFalse();
    assertThat(state.paceNanos()).isEqualTo(5 * MS);
  }
}
