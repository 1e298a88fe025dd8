package dev.pubsubclickhouse.function.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RequestMemoryBudgetTest {
  @Test
  void aRequestCountsFourBytesPerBodyByteAndAtLeastOneKibibyte() {
    assertThat(RequestMemoryBudget.cost(1_000_000)).isEqualTo(4_000_000);
    assertThat(RequestMemoryBudget.cost(10)).isEqualTo(4096);
  }

  @Test
  void beyondTheBudgetARequestIsRefusedUntilMemoryIsReleased() {
    RequestMemoryBudget budget = new RequestMemoryBudget(10_000, 100_000);
    RequestMemoryBudget.Hold first = budget.hold(6_000);
    assertThat(first).isNotNull();
    assertThat(budget.hold(6_000)).isNull();
    assertThat(budget.hold(4_000)).isNotNull();
    assertThat(budget.reserved()).isEqualTo(10_000);
    first.close();
    assertThat(budget.hold(6_000)).isNotNull();
  }

  @Test
  void aRequestLargerThanTheBudgetIsAdmittedAlone() {
    RequestMemoryBudget budget = new RequestMemoryBudget(10_000, 100_000);
    RequestMemoryBudget.Hold alone = budget.hold(50_000);
    assertThat(alone).isNotNull();
    assertThat(budget.hold(1)).isNull();
    alone.close();
    assertThat(budget.reserved()).isZero();
  }

  @Test
  void aChargeThatDoesNotFitBesideTheOthersIsRefusedAndTakesNothing() {
    RequestMemoryBudget budget = new RequestMemoryBudget(10_000, 100_000);
    RequestMemoryBudget.Hold other = budget.hold(4_000);
    RequestMemoryBudget.Hold reading = budget.hold(1_000);
    reading.charge(5_000);
    assertThatThrownBy(() -> reading.charge(1))
        .isInstanceOf(RequestMemoryBudget.NoRoomException.class);
    assertThat(reading.held()).isEqualTo(6_000);
    assertThat(budget.reserved()).isEqualTo(10_000);
    reading.giveBack(5_000);
    assertThat(budget.reserved()).isEqualTo(5_000);
    other.close();
    reading.close();
    assertThat(budget.reserved()).isZero();
  }

  @Test
  void aRequestAloneMayBeChargedBeyondTheBudgetUpToTheCeiling() {
    RequestMemoryBudget budget = new RequestMemoryBudget(10_000, 100_000);
    RequestMemoryBudget.Hold alone = budget.hold(1_000);
    alone.charge(90_000);
    assertThat(budget.hold(1)).as("nothing beside it").isNull();
    assertThatThrownBy(() -> alone.charge(10_000))
        .isInstanceOf(RequestMemoryBudget.TooCostlyException.class)
        .hasMessage(
            "reading the message would take about 0 MiB of memory, more than the 0 MiB one"
                + " message may take");
    assertThat(alone.held()).isEqualTo(91_000);
    alone.close();
    assertThat(budget.reserved()).isZero();
  }

  @Test
  void largeHoldsTogetherTakeHalfTheBudgetAndLeaveTheOtherHalfToSmallOnes() {
    long mib = 1 << 20;
    RequestMemoryBudget budget = new RequestMemoryBudget(8 * mib, 100 * mib);
    RequestMemoryBudget.Hold first = budget.hold(4096);
    RequestMemoryBudget.Hold second = budget.hold(4096);
    first.charge(4 * mib); // 3 MiB beyond its first MiB
    assertThatThrownBy(() -> second.charge(3 * mib))
        .as("2 MiB beyond its first: 5 of the large holds' 4")
        .isInstanceOf(RequestMemoryBudget.NoRoomException.class);
    second.charge(mib);
    assertThat(budget.reserved()).isEqualTo(5 * mib + 8192);
    for (int i = 0; i < 2; i++) {
      budget.hold(4096).charge(mib - 4096); // small ones: room in the other half
    }
    first.close();
    second.charge(3 * mib);
    assertThat(second.held()).isEqualTo(4 * mib + 4096);
  }

  @Test
  void aLargeHoldAloneMayTakeMoreThanHalf() {
    long mib = 1 << 20;
    RequestMemoryBudget budget = new RequestMemoryBudget(8 * mib, 100 * mib);
    RequestMemoryBudget.Hold alone = budget.hold(4096);
    alone.charge(20 * mib);
    assertThat(budget.hold(1)).isNull();
    alone.close();
    assertThat(budget.reserved()).isZero();
    assertThat(budget.hold(7 * mib)).as("the large part given back with it").isNotNull();
  }
}
