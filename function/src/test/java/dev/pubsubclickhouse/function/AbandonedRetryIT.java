package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.FaultInjectingProxy.Fault;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * An INSERT is not retried once every request it carries has been answered 503 (its answer timeout
 * passed): Pub/Sub delivers those messages again, and a retry that succeeded after the 503 would
 * store them a second time (the redelivery rides in another batch, with another deduplication
 * token).
 */
@ClickHouseTest
class AbandonedRetryIT {
  private static final String EVENT = "{\"message\":\"%s\"}";

  private final TestDatabase database;

  AbandonedRetryIT(TestDatabase database) {
    this.database = database;
  }

  @Test
  void aRetryAfterTheAnswerTimeoutDoesNotStoreAMessageAnswered503() throws Exception {
    database.execute("CREATE TABLE abandoned (message String) ENGINE = MergeTree ORDER BY message");
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url());
        RunningService service =
            RunningService.start(
                database,
                "abandoned",
                Map.of(
                    "CLICKHOUSE_URL", proxy.url(),
                    "ANSWER_TIMEOUT_MS", "1000",
                    "BATCH_MAX_WAIT_MS", "100",
                    "INSERT_TIMEOUT_MS", "5000",
                    // attempts at about 0, 0.1, 0.3, 0.7, 1.5 and 3.1 s
                    "MAX_RETRIES", "5"))) {
      proxy.failInserts(Fault.HTTP_503);
      long start = System.nanoTime();
      // The first is written by its own caller, the second (behind it) by a flusher.
      CompletableFuture<Integer> lead = CompletableFuture.supplyAsync(() -> push(service, "lead"));
      Thread.sleep(50);
      CompletableFuture<Integer> queued =
          CompletableFuture.supplyAsync(() -> push(service, "queued"));
      Thread.sleep(2000);
      proxy.heal(); // before the last retry
      assertThat(lead.get()).isEqualTo(503);
      assertThat(queued.get()).isEqualTo(503);
      assertThat((System.nanoTime() - start) / 1_000_000)
          .as("both answered near their answer timeout")
          .isLessThan(3000);
      Thread.sleep(2500); // past the last retry
      // Pub/Sub's redeliveries
      assertThat(push(service, "lead")).isEqualTo(204);
      assertThat(push(service, "queued")).isEqualTo(204);
    }
    assertThat(database.query("SELECT message FROM abandoned ORDER BY message"))
        .as("each message once")
        .isEqualTo("lead\nqueued");
  }

  private static int push(RunningService service, String id) {
    try {
      return service.push(id, EVENT.formatted(id));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
