package dev.pubsubclickhouse.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

@ClickHouseTest
class TestDatabaseIT {
  private static final String SLOW_QUERY = "SELECT sleep(1.5)";
  private final TestDatabase database;

  TestDatabaseIT(TestDatabase database) {
    this.database = database;
  }

  /**
   * ClickHouse sends a query's HTTP answer before it queues the query's QueryFinish entry for
   * system.query_log, so to the server a query its client has seen answered can still be running. A
   * SYSTEM FLUSH LOGS at that moment misses the entry (it failed ClickHouseInserterIT once in CI).
   */
  @Test
  void flushLogsWaitsForTheQueriesStillRunningInTheDatabase() throws Exception {
    CompletableFuture<String> running =
        CompletableFuture.supplyAsync(() -> database.query(SLOW_QUERY));
    try {
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (runningCount().equals("0")) {
        assertThat(System.nanoTime()).as("the query started").isLessThan(deadline);
        Thread.sleep(10);
      }
      database.flushLogs();
      assertThat(
              database.query(
                  "SELECT count() FROM system.query_log WHERE type = 'QueryFinish'"
                      + " AND current_database = '"
                      + database.name()
                      + "' AND query = '"
                      + SLOW_QUERY
                      + "'"))
          .isEqualTo("1");
    } finally {
      running.get();
    }
  }

  private String runningCount() {
    return database.query(
        "SELECT count() FROM system.processes WHERE query = '" + SLOW_QUERY + "'");
  }
}
