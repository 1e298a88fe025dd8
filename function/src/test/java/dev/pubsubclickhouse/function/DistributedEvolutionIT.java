package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseClusterTest;
import dev.pubsubclickhouse.testing.LocalCluster;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Schema evolution is refused for a Distributed table (two shards, {@link LocalCluster}): an ALTER
 * of it would change it alone, and its shards would then refuse every INSERT naming the new column.
 */
@ClickHouseClusterTest(shards = 2)
class DistributedEvolutionIT {
  private static final String REFUSAL =
      " is Distributed, and SCHEMA_EVOLUTION=add_columns cannot add a column to its shards'"
          + " tables: turn SCHEMA_EVOLUTION off, or add columns ON CLUSTER by hand";

  private final LocalCluster cluster;

  DistributedEvolutionIT(LocalCluster cluster) {
    this.cluster = cluster;
  }

  private void createDistributed(String table) {
    cluster.executeOnEveryShard("CREATE DATABASE IF NOT EXISTS evolving");
    cluster.executeOnEveryShard(
        "CREATE TABLE evolving."
            + table
            + "_local (id UInt32, _pubsub_message_id String) ENGINE = MergeTree ORDER BY id");
    cluster.query(
        0,
        "CREATE TABLE evolving."
            + table
            + " AS evolving."
            + table
            + "_local ENGINE = Distributed("
            + LocalCluster.NAME
            + ", evolving, "
            + table
            + "_local, cityHash64(_pubsub_message_id))");
  }

  private Map<String, String> environment(String table) {
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", cluster.url());
    env.put("CLICKHOUSE_USER", "default");
    env.put("CLICKHOUSE_PASSWORD", "");
    env.put("CLICKHOUSE_DATABASE", "evolving");
    env.put("CLICKHOUSE_TABLE", table);
    env.put("SUMMARY_INTERVAL_SECONDS", "3600");
    env.put("TABLE_WATCH_INTERVAL_MS", "0");
    env.put("SCHEMA_EVOLUTION", "add_columns");
    return env;
  }

  private String columns(int shard, String table) {
    return cluster.query(
        shard,
        "SELECT groupArray(name) FROM system.columns WHERE database = 'evolving' AND table = '"
            + table
            + "'");
  }

  @Test
  void aDistributedTargetKeepsTheServiceUnreadyNamingWhyAndNoColumnIsAdded() throws Exception {
    createDistributed("target");
    try (RunningService service = RunningService.startUnready(environment("target"))) {
      String reason = "";
      for (int i = 0; i < 200 && !reason.contains("SCHEMA_EVOLUTION"); i++) {
        Thread.sleep(50);
        reason = service.service.unhealthyReason().orElse("");
      }
      assertThat(reason).isEqualTo("table evolving.target" + REFUSAL);
      assertThat(service.push("d-1", "{\"id\":1,\"score\":5}")).isEqualTo(503);
    }
    assertThat(columns(0, "target")).isEqualTo("['id','_pubsub_message_id']");
    assertThat(columns(1, "target_local")).isEqualTo("['id','_pubsub_message_id']");
  }

  @Test
  void aRoutedDistributedTableDeadLettersItsMessagesWithTheReason() throws Exception {
    createDistributed("routed");
    cluster.query(0, "CREATE TABLE evolving.plain (id UInt32) ENGINE = MergeTree ORDER BY id");
    cluster.query(
        0,
        "CREATE TABLE evolving.plain_dead (raw_message String, error_message String,"
            + " stack_trace String, failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");
    Map<String, String> env = environment("plain");
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "plain_dead");
    env.put("CLICKHOUSE_TABLE_ATTRIBUTE", "table");
    env.put("CLICKHOUSE_TABLES", "routed");
    try (RunningService service = RunningService.start(env)) {
      assertThat(
              service.push("r-1", "{\"id\":1,\"score\":5}".getBytes(), Map.of("table", "routed")))
          .isEqualTo(204);
    }
    assertThat(columns(0, "routed")).isEqualTo("['id','_pubsub_message_id']");
    assertThat(cluster.query(0, "SELECT raw_message, error_message FROM evolving.plain_dead"))
        .isEqualTo(
            "{\"id\":1,\"score\":5}\tattribute table names a table that cannot be written: table"
                + " evolving.routed"
                + REFUSAL.replace("'", "\\'"));
  }
}
