package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * ANSWER_TIMEOUT_MS holds for every request, also for the one whose thread writes its own batch (a
 * message arriving while its table has no INSERT in flight, the usual case at low load): its INSERT
 * attempt ends by its deadline, and is not tried again, since nobody would hear of it.
 */
@ClickHouseTest
class AnswerDeadlineIT {
  private static final String EVENT = "{\"message\":\"%s\"}";

  private final TestDatabase database;

  AnswerDeadlineIT(TestDatabase database) {
    this.database = database;
  }

  @Test
  void aRequestWritingItsOwnBatchIsAnsweredByItsDeadline() throws Exception {
    database.execute("CREATE TABLE lead (message String) ENGINE = MergeTree ORDER BY message");
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url());
        RunningService service =
            RunningService.start(
                database,
                "lead",
                Map.of(
                    "CLICKHOUSE_URL", proxy.url(),
                    "ANSWER_TIMEOUT_MS", "1000",
                    "INSERT_TIMEOUT_MS", "20000",
                    "MAX_RETRIES", "3"))) {
      proxy.slowInserts(Duration.ofSeconds(5));
      long start = System.nanoTime();
      int status = service.push("slow", EVENT.formatted("slow"));
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(millis).as("answered within its answer timeout (and one sweep)").isLessThan(2500);
      assertThat(status).isEqualTo(503);
      Thread.sleep(5000); // the proxy passes the slow INSERT on after 5 s
      assertThat(proxy.inserts()).as("the INSERT cut at the deadline is not retried").hasSize(1);
    }
  }

  @Test
  void aRequestWhoseMessageIsDeadLetteredIsAnsweredByItsDeadline() throws Exception {
    database.execute("CREATE TABLE counted (n UInt8) ENGINE = MergeTree ORDER BY n");
    database.execute(
        "CREATE TABLE counted_errors (raw_message String, error_message String,"
            + " stack_trace String, failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url());
        RunningService service =
            RunningService.start(
                database,
                "counted",
                Map.of(
                    "CLICKHOUSE_URL", proxy.url(),
                    "CLICKHOUSE_DEAD_LETTER_TABLE", "counted_errors",
                    "ANSWER_TIMEOUT_MS", "1000",
                    "INSERT_TIMEOUT_MS", "20000",
                    "MAX_RETRIES", "3"))) {
      proxy.slowInserts(Duration.ofSeconds(5)); // the dead letter's INSERT: the only one
      long start = System.nanoTime();
      int status = service.push("refused", "{\"n\":\"not a number\"}");
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(millis).as("answered within its answer timeout (and one sweep)").isLessThan(2500);
      assertThat(status).isEqualTo(503);
      Thread.sleep(5000); // the proxy passes the slow INSERT on after 5 s
      assertThat(proxy.inserts())
          .as("one INSERT, into the dead-letter table, cut at the deadline and not retried")
          .hasSize(1)
          .allSatisfy(
              insert ->
                  assertThat(insert.url().queryParameter("query")).contains("counted_errors"));
    }
  }
}
