package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.IntegrationFixtures.concurrently;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseClusterTest;
import dev.pubsubclickhouse.testing.LocalCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * The "land through a view" layout behind a Distributed table (two shards, {@link LocalCluster}):
 * each shard's local table is {@code ENGINE = Null} and a view on it fills the table that keeps the
 * rows. A view refusing one message on its shard must cost no other message, and every message
 * answered 2xx must be in a view's table or in the dead letters.
 */
@ClickHouseClusterTest(shards = 2)
class DistributedLandingIT {
  private static final int MESSAGES = 12;
  private static final int POISON = 5;

  private final LocalCluster cluster;

  DistributedLandingIT(LocalCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void aViewRefusingAMessageOnOneShardDeadLettersItAndStoresEveryOtherMessage() throws Exception {
    cluster.executeOnEveryShard("CREATE DATABASE IF NOT EXISTS landing");
    cluster.executeOnEveryShard(
        "CREATE TABLE landing.events_local (n Int32, _pubsub_message_id String) ENGINE = Null");
    cluster.executeOnEveryShard(
        "CREATE TABLE landing.landed (n Int32, id String, CONSTRAINT not_negative CHECK n >= 0)"
            + " ENGINE = MergeTree ORDER BY n");
    cluster.executeOnEveryShard(
        "CREATE MATERIALIZED VIEW landing.events_mv TO landing.landed"
            + " AS SELECT n, _pubsub_message_id AS id FROM landing.events_local");
    cluster.query(
        0,
        "CREATE TABLE landing.events AS landing.events_local ENGINE = Distributed("
            + LocalCluster.NAME
            + ", landing, events_local, cityHash64(_pubsub_message_id))");
    cluster.query(
        0,
        "CREATE TABLE landing.events_errors (raw_message String, error_message String,"
            + " stack_trace String, failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");

    List<Integer> statuses;
    try (RunningService service =
        RunningService.start(
            Map.of(
                "CLICKHOUSE_URL", cluster.url(),
                "CLICKHOUSE_USER", "default",
                "CLICKHOUSE_PASSWORD", "",
                "CLICKHOUSE_DATABASE", "landing",
                "CLICKHOUSE_TABLE", "events",
                "CLICKHOUSE_DEAD_LETTER_TABLE", "events_errors",
                "BATCH_LINGER_MS", "200",
                "SUMMARY_INTERVAL_SECONDS", "3600",
                "TABLE_WATCH_INTERVAL_MS", "0"))) {
      List<Callable<Integer>> requests = new ArrayList<>();
      for (int i = 0; i < MESSAGES; i++) {
        int n = i == POISON ? -POISON : i;
        requests.add(() -> service.push("d-" + n, "{\"n\":" + n + "}"));
      }
      statuses = concurrently(requests);
    }

    assertThat(statuses).as("every message stored or dead-lettered").containsOnly(204);
    TreeSet<String> stored = new TreeSet<>();
    for (int shard = 0; shard < cluster.size(); shard++) {
      stored.addAll(
          cluster
              .query(shard, "SELECT concat(toString(n), ' ', id) FROM landing.landed")
              .lines()
              .toList());
    }
    TreeSet<String> expected = new TreeSet<>();
    for (int i = 0; i < MESSAGES; i++) {
      if (i != POISON) {
        expected.add(i + " d-" + i);
      }
    }
    assertThat(stored).as("every good message in a view's table, as published").isEqualTo(expected);
    assertThat(cluster.query(0, "SELECT raw_message FROM landing.events_errors"))
        .as("the refused message, dead-lettered once")
        .isEqualTo("{\"n\":-" + POISON + "}");
  }
}
