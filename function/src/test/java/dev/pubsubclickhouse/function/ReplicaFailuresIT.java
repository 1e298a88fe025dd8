package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.FaultInjectingProxy.Insert;
import dev.pubsubclickhouse.testing.FaultInjectingProxy.ReplicaFailure;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A replicated table's failures to get its replicas, each as ClickHouse answers it (code, HTTP
 * status, headers and text of ClickHouse 26.7, injected by the proxy in front of the real server),
 * end to end:
 *
 * <ul>
 *   <li>285 TOO_FEW_LIVE_REPLICAS (insert_quorum): refused before anything is written;
 *   <li>319 UNKNOWN_STATUS_OF_INSERT, "replica became inactive" and the quorum timeout: the rows
 *       are written on the replica that took the INSERT, and nobody knows whether they will stay;
 *   <li>279 ALL_CONNECTION_TRIES_FAILED: no replica of one shard of a Distributed table answers,
 *       and the other shards may have kept their rows.
 * </ul>
 *
 * Either way the message is not acknowledged (503, Pub/Sub keeps it), every retry of the INSERT —
 * the service's own and the one after Pub/Sub's redelivery — carries the same
 * insert_deduplication_token, and the table ends with each row exactly once. The table is a
 * MergeTree with non_replicated_deduplication_window, which drops a repeated token as a
 * ReplicatedMergeTree does (ReplicatedMergeTree cannot run on this engine).
 */
@ClickHouseTest
class ReplicaFailuresIT {
  private static final String MESSAGE =
      "[{\"id\":\"%1$s\",\"n\":1},{\"id\":\"%1$s\",\"n\":2},{\"id\":\"%1$s\",\"n\":3}]";
  private static final int MAX_RETRIES = 2;

  private final TestDatabase database;

  ReplicaFailuresIT(TestDatabase database) {
    this.database = database;
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(ReplicaFailure.class)
  void theMessageIsNotAcknowledgedAndEveryRetryCarriesTheSameToken(ReplicaFailure failure)
      throws Exception {
    String table = "replicas_" + failure.name().toLowerCase(Locale.ROOT);
    database.execute(
        "CREATE TABLE "
            + table
            + " (id String, n UInt8) ENGINE = MergeTree ORDER BY (id, n)"
            + " SETTINGS non_replicated_deduplication_window = 100");
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url());
        RunningService service =
            RunningService.start(
                database,
                table,
                Map.of(
                    "CLICKHOUSE_URL",
                    proxy.url(),
                    "INSERT_QUORUM",
                    "2",
                    "MAX_RETRIES",
                    Integer.toString(MAX_RETRIES),
                    "INSERT_TIMEOUT_MS",
                    "2000"))) {
      assertThat(service.push("before", MESSAGE.formatted("before"))).isEqualTo(204);
      int seenBefore = proxy.inserts().size();

      proxy.failInserts(failure);
      assertThat(service.push("during", MESSAGE.formatted("during")))
          .as("not acknowledged: Pub/Sub keeps the message")
          .isEqualTo(503);
      List<Insert> failed = proxy.inserts().subList(seenBefore, proxy.inserts().size());
      // 285 and 319 are retried by the service (MAX_RETRIES); 279 is answered 503 at its first
      // failure today (ClickHouseFailures does not count it transient), and Pub/Sub retries it.
      int attempts = failure == ReplicaFailure.ALL_REPLICAS_OF_A_SHARD_DOWN ? 1 : 1 + MAX_RETRIES;
      assertThat(failed)
          .as("%d attempts or more, each answered 500", attempts)
          .hasSizeGreaterThanOrEqualTo(attempts)
          .allSatisfy(insert -> assertThat(insert.status()).isEqualTo(500));
      assertThat(rows(table, "during"))
          .as(
              failure.rowsWritten()
                  ? "written once by the first attempt; the retries were dropped as duplicates"
                  : "nothing written")
          .isEqualTo(failure.rowsWritten() ? "during\t1\nduring\t2\nduring\t3" : "");
      String token = failed.get(0).deduplicationToken();
      assertThat(token).as("the INSERT carries a deduplication token").isNotBlank();
      assertThat(failed)
          .as("the service's own retries carry the first attempt's token and insert_quorum")
          .allSatisfy(
              insert -> {
                assertThat(insert.deduplicationToken()).isEqualTo(token);
                assertThat(insert.setting("insert_quorum")).isEqualTo("2");
              });

      proxy.heal();
      int seenDuring = proxy.inserts().size();
      assertThat(service.push("during", MESSAGE.formatted("during")))
          .as("Pub/Sub's redelivery")
          .isEqualTo(204);
      assertThat(proxy.inserts().subList(seenDuring, proxy.inserts().size()))
          .as("the redelivered message's INSERT carries the same token")
          .extracting(Insert::deduplicationToken)
          .containsExactly(token);
    }
    assertThat(rows(table, "during")).isEqualTo("during\t1\nduring\t2\nduring\t3");
    assertThat(rows(table, "before")).isEqualTo("before\t1\nbefore\t2\nbefore\t3");
    assertThat(database.count(table)).isEqualTo(6);
  }

  private String rows(String table, String id) {
    return database.query(
        "SELECT id, n FROM " + table + " WHERE id = '" + id + "' ORDER BY n FORMAT TSV");
  }
}
