package dev.pubsubclickhouse.backfill.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The plan table against the real ClickHouse: tasks that start together agree on one plan. */
@ClickHouseTest
class PlanStoreIT {
  private final TestDatabase db;

  PlanStoreIT(TestDatabase db) {
    this.db = db;
  }

  @Test
  void tasksProposingAtTheSameMomentAllGetTheFirstInsertedProposal() throws Exception {
    TableName table = new TableName(db.name(), "plans");
    int tasks = 8;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(tasks);
    List<Future<String>> settled = new ArrayList<>();
    for (int task = 0; task < tasks; task++) {
      int index = task;
      PlanStore store = PlanStore.open(db.client(), table, index, Clock.systemUTC());
      settled.add(
          threads.submit(
              () -> {
                start.await();
                return store.settle("execution-1", "read-session", () -> "proposal of " + index);
              }));
    }
    start.countDown();
    List<String> values = new ArrayList<>();
    for (Future<String> value : settled) {
      values.add(value.get());
    }
    threads.shutdown();

    assertThat(values).hasSize(tasks).containsOnly(values.get(0));
    assertThat(db.query("SELECT count(), any(value) FROM plans WHERE execution = 'execution-1'"))
        .isEqualTo("1\t" + values.get(0));
    // Another execution settles on its own.
    PlanStore store = PlanStore.open(db.client(), table, 0, Clock.systemUTC());
    assertThat(store.settle("execution-2", "read-session", () -> "second")).isEqualTo("second");
    assertThat(store.settle("execution-1", "read-session", () -> "late")).isEqualTo(values.get(0));
  }
}
