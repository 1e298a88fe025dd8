package dev.pubsubclickhouse.function;

import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What the push service's integration tests set up alike: a dead-letter table to point {@code
 * CLICKHOUSE_DEAD_LETTER_TABLE} at, and requests sent all at once.
 */
final class IntegrationFixtures {
  private static final String DEAD_LETTER_COLUMNS =
      "(raw_message String, error_message String, stack_trace String, failed_at DateTime)"
          + " ENGINE = MergeTree ORDER BY failed_at";

  private IntegrationFixtures() {}

  /** Creates {@code table} in {@code database} with the columns the service dead-letters into. */
  static void createDeadLetterTable(TestDatabase database, String table) {
    database.execute("CREATE TABLE " + table + " " + DEAD_LETTER_COLUMNS);
  }

  /**
   * Sends all at once from as many threads (each waits on one latch until all are submitted) and
   * returns their statuses in order.
   */
  static List<Integer> concurrently(List<Callable<Integer>> requests) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(requests.size());
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Integer>> futures = new ArrayList<>();
      for (Callable<Integer> request : requests) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return request.call();
                }));
      }
      start.countDown();
      List<Integer> statuses = new ArrayList<>();
      for (Future<Integer> future : futures) {
        statuses.add(future.get());
      }
      return statuses;
    } finally {
      pool.shutdownNow();
    }
  }
}
