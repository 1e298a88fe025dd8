package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.emulator.Events.Row;
import dev.pubsubclickhouse.testing.ClickHouseClusterTest;
import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.LocalCluster;
import dev.pubsubclickhouse.testing.PubSubEmulator;
import dev.pubsubclickhouse.testing.PubSubEmulatorTest;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Distributed table over two shards (two ClickHouse servers, {@link LocalCluster}), fed by a real
 * push subscription of the emulator; one shard is killed while messages keep coming and its INSERTs
 * are in flight. Pub/Sub redelivers what was answered 503: afterwards every published row is on the
 * shard its key gives it, nothing waits in the Distributed table's queue, and {@code FINAL} (the
 * exactly-once layout on each shard, sharded by the message id) holds each published row once,
 * value for value.
 */
@ClickHouseClusterTest(shards = 2)
@PubSubEmulatorTest
class ShardKilledThroughEmulatorIT {
  private static final String DATABASE = "emulator_cluster";
  private static final Duration ARRIVAL = Duration.ofSeconds(120);

  private final LocalCluster cluster;
  private final PubSubRest pubsub;

  ShardKilledThroughEmulatorIT(LocalCluster cluster, PubSubEmulator emulator) {
    this.cluster = cluster;
    this.pubsub = emulator.rest("emulator-tests");
  }

  @Test
  void aShardKilledWhileMessagesKeepComingLosesAndDoublesNothing() throws Exception {
    cluster.executeOnEveryShard("CREATE DATABASE IF NOT EXISTS " + DATABASE);
    cluster.executeOnEveryShard(Events.targetTable(DATABASE + ".events_local"));
    // Every copy written stays countable; only FINAL collapses them.
    cluster.executeOnEveryShard("SYSTEM STOP MERGES " + DATABASE + ".events_local");
    cluster.query(
        0,
        "CREATE TABLE "
            + DATABASE
            + ".events AS "
            + DATABASE
            + ".events_local ENGINE = Distributed("
            + LocalCluster.NAME
            + ", "
            + DATABASE
            + ", events_local, cityHash64(_pubsub_message_id))");
    ClickHouseServer server = new ClickHouseServer(cluster.url(), "default", "");
    Stored stored =
        new Stored(new Sql(server.url(), server.user(), server.password(), DATABASE), "events");
    ServiceProcess service =
        Services.start("shard-killed", Services.writing(server, DATABASE, "events"));
    try {
      pubsub.createTopic("sharded");
      String subscription =
          pubsub.subscription("sharded-push", "sharded").pushTo(service.url()).create();
      List<Message> messages = new ArrayList<>();
      for (int id = 1; id <= 300; id++) {
        messages.add(id % 5 == 0 ? Events.several(10_000 + 3 * id, 3) : Events.one(id));
      }
      // Shard 1 goes down after the first third.
      List<String> published =
          Outage.publishWhileDown(
              pubsub, "sharded", messages, stored, cluster.shard(1), "shard 1", service);

      List<Row> expected =
          Events.expectedRows(pubsub.subscriptionPath(subscription), published, messages, false);
      stored.awaitSettled(expected.size(), ARRIVAL);
      stored.assertHoldsExactly(expected);
      for (int shard = 0; shard < cluster.size(); shard++) {
        assertThat(
                cluster.number(
                    shard,
                    "SELECT count() FROM "
                        + DATABASE
                        + ".events_local WHERE cityHash64(_pubsub_message_id) % 2 != "
                        + shard))
            .as("rows on shard %d that its key does not give it", shard)
            .isZero();
        assertThat(cluster.number(shard, "SELECT count() FROM " + DATABASE + ".events_local"))
            .as("shard %d holds rows", shard)
            .isPositive();
      }
      assertThat(
              cluster.number(
                  0,
                  "SELECT count() FROM system.distribution_queue WHERE database = '"
                      + DATABASE
                      + "' AND data_files > 0"))
          .as("rows only queued on shard 0 for the other shard")
          .isZero();
      assertThat(service.metric("pubsub_clickhouse_unavailable_total"))
          .as("pushes answered 503 while the shard was down, redelivered afterwards")
          .isPositive();
    } finally {
      Services.stop(service);
    }
  }
}
