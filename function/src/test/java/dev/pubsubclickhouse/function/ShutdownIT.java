package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.Test;

/**
 * Shutdown ends the threads the write path started, against the real ClickHouse. The service is
 * started from a thread group of its own, which every thread it starts inherits, so that its
 * threads are told apart from other services' in the same JVM.
 */
@ClickHouseTest
class ShutdownIT {
  private final TestDatabase database;

  ShutdownIT(TestDatabase database) {
    this.database = database;
  }

  /** The service on a thread of {@code group}. */
  private PushService startIn(ThreadGroup group, String table) throws Exception {
    Callable<PushService> start =
        () ->
            PushService.start(
                PushConfig.read(
                    RunningService.environment(
                        database, table, Map.of("TABLE_WATCH_INTERVAL_MS", "500"))));
    FutureTask<PushService> task = new FutureTask<>(start);
    new Thread(group, task, "starter").start();
    return task.get();
  }

  private static List<String> liveThreads(ThreadGroup group) {
    Thread[] threads = new Thread[group.activeCount() + 32];
    int count = group.enumerate(threads, true);
    return Arrays.stream(threads, 0, count).filter(Thread::isAlive).map(Thread::getName).toList();
  }

  /** The write path's own threads still alive in {@code group}. */
  private static List<String> writePathThreads(ThreadGroup group) {
    return liveThreads(group).stream()
        .filter(name -> name.startsWith("batch-flusher-") || name.equals("table-watch"))
        .toList();
  }

  /** Waits up to 10 s for the write path's threads in {@code group} to end; returns those left. */
  private static List<String> writePathThreadsLeft(ThreadGroup group) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!writePathThreads(group).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return writePathThreads(group);
  }

  @Test
  void shutdownEndsTheBatchFlushersAndTheTableWatch() throws Exception {
    database.execute("CREATE TABLE stopping (id UInt32) ENGINE = MergeTree ORDER BY id");
    ThreadGroup group = new ThreadGroup("stopping-service");
    PushService service = startIn(group, "stopping");
    assertThat(service.awaitReady(Duration.ofSeconds(60))).isTrue();
    assertThat(writePathThreads(group)).contains("table-watch", "batch-flusher-0");
    service.shutdown(5);
    assertThat(writePathThreadsLeft(group)).isEmpty();
  }

  @Test
  void aWritePathThatOpensAfterShutdownBeganEndsItsThreads() throws Exception {
    database.execute("CREATE TABLE late (id UInt32) ENGINE = MergeTree ORDER BY id");
    // Shutdown comes while the write path opens, or before, or after: a race the test runs a few
    // times; whichever way it goes, no thread of the write path may outlive the shutdown.
    for (int i = 0; i < 5; i++) {
      ThreadGroup group = new ThreadGroup("late-service-" + i);
      PushService service = startIn(group, "late");
      Thread.sleep(i * 20L);
      service.shutdown(1);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (liveThreads(group).contains("clickhouse-readiness") && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(writePathThreadsLeft(group)).as("try %d", i).isEmpty();
    }
  }
}
