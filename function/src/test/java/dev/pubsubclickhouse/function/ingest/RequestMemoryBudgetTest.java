package dev.pubsubclickhouse.function.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestMemoryBudgetTest {
  @Test
  void aRequestCountsFourBytesPerBodyByteAndAtLeastOneKibibyte() {
    assertThat(RequestMemoryBudget.cost(1_000_000)).isEqualTo(4_000_000);
    assertThat(RequestMemoryBudget.cost(10)).isEqualTo(4096);
  }

  @Test
  void beyondTheBudgetARequestIsRefusedUntilMemoryIsReleased() {
    RequestMemoryBudget budget = new RequestMemoryBudget(10_000);
    assertThat(budget.tryReserve(6_000)).isTrue();
    assertThat(budget.tryReserve(6_000)).isFalse();
    assertThat(budget.tryReserve(4_000)).isTrue();
    assertThat(budget.reserved()).isEqualTo(10_000);
    budget.release(6_000);
    assertThat(budget.tryReserve(6_000)).isTrue();
  }

  @Test
  void aRequestLargerThanTheBudgetIsAdmittedAlone() {
    RequestMemoryBudget budget = new RequestMemoryBudget(10_000);
    assertThat(budget.tryReserve(50_000)).isTrue();
    assertThat(budget.tryReserve(1)).isFalse();
    budget.release(50_000);
    assertThat(budget.reserved()).isZero();
  }
}
