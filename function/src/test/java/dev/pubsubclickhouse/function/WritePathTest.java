package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.function.flow.FlowControl;
import dev.pubsubclickhouse.function.flow.FlowGate;
import dev.pubsubclickhouse.function.flow.FlowPolicy;
import dev.pubsubclickhouse.function.flow.SchedulerFailingOnItsSecondTask;
import dev.pubsubclickhouse.function.flow.TableGates;
import dev.pubsubclickhouse.function.flow.TableLoad;
import dev.pubsubclickhouse.function.ingest.BatchPolicy;
import dev.pubsubclickhouse.function.ingest.GroupCommitBatcher;
import dev.pubsubclickhouse.function.observability.Metrics;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

/** What the write path's threads tell the liveness probe, without ClickHouse. */
class WritePathTest {
  private static final BatchPolicy POLICY =
      BatchPolicy.builder()
          .maxRows(10)
          .maxBytes(1 << 20)
          .maxWait(Duration.ofMillis(100))
          .linger(Duration.ofMillis(10))
          .maxConcurrentInserts(1)
          .maxInsertsPerSecond(10_000)
          .maxPendingBytes(1 << 30)
          .maxPendingMessages(100)
          .answerTimeout(Duration.ofSeconds(5))
          .build();

  @Test
  void aTableWatchThatStoppedIsADeathCause() throws Exception {
    ScheduledExecutorService scheduler = new SchedulerFailingOnItsSecondTask();
    try (GroupCommitBatcher batcher = new GroupCommitBatcher(POLICY, batch -> {})) {
      TableGates gates =
          new TableGates(
              new TableName("db", "events"),
              table ->
                  new FlowGate(
                      table,
                      new FlowControl(500, 0, 10_000_000_000L),
                      () ->
                          TableLoad.builder()
                              .partitionParts(1)
                              .activeParts(1)
                              .partsToDelayInsert(10)
                              .partsToThrowInsert(20)
                              .maxPartsInTotal(100_000)
                              .build(),
                      new Metrics(),
                      new FlowPolicy(0, Duration.ofMillis(10))),
              scheduler,
              batch -> {},
              new Metrics());
      WritePath path =
          new WritePath(
              null,
              null,
              List.of(),
              batcher,
              null,
              Optional.of(new WritePath.TableWatch(gates, scheduler)));
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (path.deathCause().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(path.deathCause()).contains("table watch stopped: OutOfMemoryError");
    } finally {
      scheduler.shutdownNow();
    }
  }
}
