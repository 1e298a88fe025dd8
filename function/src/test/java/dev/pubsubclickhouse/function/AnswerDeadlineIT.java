package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * ANSWER_TIMEOUT_MS holds for every request, also for the one whose thread writes its own batch (a
 * message arriving while its table has no INSERT in flight, the usual case at low load): its INSERT
 * attempt ends by its deadline, and is not tried again, since nobody would hear of it. Up to that
 * deadline a request waits on its connection, also past Jetty's idle timeout.
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
    assertThat(
            pushedWithEveryInsertSlowerThanTheDeadline("lead", Map.of(), EVENT.formatted("slow")))
        .as("the INSERT cut at the deadline is not retried")
        .hasSize(1);
  }

  @Test
  void aRequestWhoseMessageIsDeadLetteredIsAnsweredByItsDeadline() throws Exception {
    database.execute("CREATE TABLE counted (n UInt8) ENGINE = MergeTree ORDER BY n");
    database.execute(
        "CREATE TABLE counted_errors (raw_message String, error_message String,"
            + " stack_trace String, failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");
    // The dead letter's INSERT is the only one.
    assertThat(
            pushedWithEveryInsertSlowerThanTheDeadline(
                "counted",
                Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", "counted_errors"),
                "{\"n\":\"not a number\"}"))
        .as("one INSERT, into the dead-letter table, cut at the deadline and not retried")
        .hasSize(1)
        .allSatisfy(
            insert -> assertThat(insert.url().queryParameter("query")).contains("counted_errors"));
  }

  @Test
  void aRequestWaitingLongerThanJettysIdleTimeoutIsAnsweredOnItsConnection() throws Exception {
    // A request waiting for a slow INSERT does no I/O for as long, longer than Jetty's idle timeout
    // for connections (30 s), and must still get its answer: a closed connection would be a failed
    // delivery for Pub/Sub, and the rows, stored meanwhile, would come again. Jetty 12 lets a
    // connection's idle timeout pass while a handler runs with no I/O pending; this keeps a newer
    // Jetty, or a timeout of our own, from changing that unnoticed.
    database.execute("CREATE TABLE patient (message String) ENGINE = MergeTree ORDER BY message");
    Duration slow = Duration.ofSeconds(32);
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url())) {
      Map<String, String> environment =
          Map.of(
              "CLICKHOUSE_URL", proxy.url(),
              "ANSWER_TIMEOUT_MS", "45000",
              "INSERT_TIMEOUT_MS", "40000",
              "MAX_RETRIES", "0");
      try (RunningService service = RunningService.start(database, "patient", environment)) {
        proxy.slowInserts(slow);
        long start = System.nanoTime();
        int status = service.push("patient", EVENT.formatted("waited"));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(millis).as("the answer came after the slow INSERT").isGreaterThan(30_000);
        assertThat(status).isEqualTo(204);
      }
      assertThat(proxy.inserts()).hasSize(1);
    }
    assertThat(database.query("SELECT message FROM patient")).isEqualTo("waited");
  }

  /**
   * Pushes one message to a service whose ClickHouse takes 5 s for every INSERT (ANSWER_TIMEOUT_MS
   * 1 s, INSERT_TIMEOUT_MS 20 s, three retries), checks that it was answered 503 by its deadline,
   * and returns the INSERTs ClickHouse got by the time the slow one landed.
   */
  private List<FaultInjectingProxy.Insert> pushedWithEveryInsertSlowerThanTheDeadline(
      String table, Map<String, String> settings, String data) throws Exception {
    Map<String, String> environment = new HashMap<>(settings);
    environment.put("ANSWER_TIMEOUT_MS", "1000");
    environment.put("INSERT_TIMEOUT_MS", "20000");
    environment.put("MAX_RETRIES", "3");
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url())) {
      environment.put("CLICKHOUSE_URL", proxy.url());
      try (RunningService service = RunningService.start(database, table, environment)) {
        proxy.slowInserts(Duration.ofSeconds(5));
        long start = System.nanoTime();
        int status = service.push("pushed", data);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(millis)
            .as("answered within its answer timeout (and one sweep)")
            .isLessThan(2500);
        assertThat(status).isEqualTo(503);
        Thread.sleep(5000); // the proxy passes the slow INSERT on after 5 s
        return proxy.inserts();
      }
    }
  }
}
