package dev.pubsubclickhouse.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.driver.PushDriver.Summary;
import dev.pubsubclickhouse.testing.ClickHouseClusterTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.FaultInjectingProxy.Insert;
import dev.pubsubclickhouse.testing.FaultInjectingProxy.Mutation;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.LocalCluster;
import dev.pubsubclickhouse.testing.ServiceProcess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The service writing to a Distributed table over two shards (two ClickHouse servers on this
 * machine, {@link LocalCluster}), with the service jar and the push driver as processes. A shard is
 * killed while large INSERTs are in flight; afterwards no message is acknowledged whose rows are
 * not on their shards, and every row is stored exactly once in the README's exactly-once layout.
 * Asynchronous Distributed inserts, which would acknowledge rows only queued on the server that
 * took the INSERT, are refused at start; {@link #asynchronousInsertsWouldAcknowledgeRowsOnlyQueued}
 * shows what that refusal prevents.
 *
 * <p>Every INSERT goes through a {@link FaultInjectingProxy} that only passes it on and keeps its
 * deduplication token. With {@code -Dtest.mutation=async-distributed} or {@code
 * -Dtest.mutation=new-token-per-insert} it sends the INSERTs as a regressed service would, and
 * these tests fail.
 */
@ClickHouseClusterTest(shards = 2)
class DistributedTargetIT {
  private static final String DATABASE = "cluster_it";

  /** Rows per message: with 16 pushes in flight an INSERT holds up to 1,600 rows. */
  private static final int ROWS_PER_MESSAGE = 100;

  private final LocalCluster cluster;
  private final Started started = new Started();

  DistributedTargetIT(LocalCluster cluster) {
    this.cluster = cluster;
  }

  @AfterEach
  void stopWhatRuns() throws Exception {
    started.close();
    // A test that failed with the shard down leaves it down; the next one needs it.
    if (!LocalClickHouse.answers(
        Map.of("CLICKHOUSE_LOCAL_PORT", Integer.toString(cluster.shard(1).port())))) {
      cluster.shard(1).start();
    }
  }

  @Test
  void shardKilledWhileLargeInsertsAreInFlight() throws Exception {
    ShardedRows rows = new ShardedRows(cluster, DATABASE, "killed_shard");
    Path work = ClusterRuns.work("killed-shard");
    // 100 rows each: the soak's 20,000 messages would be 2M rows; 2,000 are plenty for 3 kills.
    int messages = Math.min(Results.messages(), 2_000);
    FaultInjectingProxy proxy = proxy();
    Map<String, String> env = environment(proxy, rows);
    proxy.overrideSettings(
        ClusterRuns.MANY_BLOCKS); // the service keeps an INSERT one block; the proxy not
    // Pub/Sub-like: the service gives up quickly (503) and Pub/Sub redelivers.
    env.put("MAX_RETRIES", "1");
    env.put("INSERT_TIMEOUT_MS", "3000");
    env.put("ANSWER_TIMEOUT_MS", "6000");
    ServiceProcess service = service(env, work);
    DriverRun driver =
        driver(
            service,
            ShardedRows.writeMessages(work.resolve("input.ndjson"), messages, ROWS_PER_MESSAGE),
            work);
    for (int round = 1; round <= Results.rounds(); round++) {
      awaitRowsOnShard0(
          rows, driver, (long) messages * ROWS_PER_MESSAGE * round / (Results.rounds() + 1) / 2);
      service.note("shard 1 killed");
      cluster.shard(1).kill();
      Thread.sleep(2_000);
      cluster.shard(1).start();
      service.note("shard 1 restarted");
    }
    Summary summary = driver.await(300);
    ShardedRows.Account account = rows.account();
    long failedInserts = failed(proxy);
    record("shard-killed", summary, account, proxy);

    assertThat(summary.acked()).as("every message acknowledged").isEqualTo(messages);
    assertThat(summary.deadLettered()).isZero();
    assertThat(account.missing(messages, ROWS_PER_MESSAGE))
        .as("rows of acknowledged messages that are on no shard")
        .isEmpty();
    assertThat(account.queued()).as("rows only queued on shard 0 for the other shard").isZero();
    assertThat(account.misplaced()).as("rows on a shard their key does not give them").isZero();
    assertThat(account.finalRows())
        .as("exactly-once layout, count() FINAL: each row once")
        .isEqualTo((long) messages * ROWS_PER_MESSAGE);
    assertThat(failedInserts).as("the kill was felt: INSERTs failed").isPositive();
    assertThat(summary.retried()).as("... and messages were redelivered").isPositive();
  }

  /**
   * The shard of half a large INSERT is down: the first blocks reach the other shard and stay there
   * (a partial write), the INSERT fails (code 210), and the service retries it until the shard is
   * back. Each retry carries the same token, so the shard that has the first blocks drops them as
   * repeats: the message is acknowledged once, and each row is stored once — no FINAL needed.
   */
  @Test
  void aPartialWriteIsCompletedByTheServicesOwnRetriesWithoutADuplicate() throws Exception {
    ShardedRows rows = new ShardedRows(cluster, DATABASE, "partial_write");
    Path work = ClusterRuns.work("partial-write");
    String messageId = "partial-1";
    // 300 rows for shard 0 first, then 100 for shard 1: the INSERT reaches shard 1 in its 4th
    // block of 100, after shard 0 has its first ones.
    List<Integer> order = new ArrayList<>(rowsOfShard(messageId, 0, 300));
    order.addAll(rowsOfShard(messageId, 1, 100));
    FaultInjectingProxy proxy = proxy();
    Map<String, String> env = environment(proxy, rows);
    proxy.overrideSettings(
        ClusterRuns.MANY_BLOCKS); // the service keeps an INSERT one block; the proxy not
    env.put("MAX_RETRIES", "20");
    env.put("INSERT_TIMEOUT_MS", "5000");
    env.put("ANSWER_TIMEOUT_MS", "60000");
    ServiceProcess service = service(env, work);
    long duplicatedBefore = rows.duplicatedBlocks(0);

    cluster.shard(1).kill();
    service.note("shard 1 killed");
    CompletableFuture<Integer> answer =
        CompletableFuture.supplyAsync(
            () -> ClusterRuns.push(service, messageId, ShardedRows.message(messageId, order)));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (failed(proxy) < 2 && !answer.isDone() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    long onShard0 =
        cluster.number(
            0,
            "SELECT uniqExact(row) FROM "
                + rows.local()
                + " WHERE _pubsub_message_id = '"
                + messageId
                + "'");
    cluster.shard(1).start();
    service.note("shard 1 restarted");

    assertThat(answer.get(90, TimeUnit.SECONDS))
        .as("acknowledged after the shard came back")
        .isEqualTo(204);
    assertThat(failed(proxy))
        .as("attempts that failed while shard 1 was down")
        .isGreaterThanOrEqualTo(2);
    assertThat(onShard0)
        .as("a partial write: shard 0 kept some of its 300 rows of the failed INSERT")
        .isBetween(1L, 299L);
    ShardedRows.Account account = rows.account();
    record("partial-write", null, account, proxy);
    assertThat(account.copies().keySet())
        .as("the message's rows")
        .isEqualTo(order.stream().map(row -> messageId + "/" + row).collect(Collectors.toSet()));
    assertThat(account.duplicates()).as("rows stored twice").isZero();
    assertThat(account.misplaced()).isZero();
    assertThat(account.queued()).isZero();
    assertThat(rows.duplicatedBlocks(0) - duplicatedBefore)
        .as("shard 0 dropped the repeated blocks of the retries")
        .isPositive();
    List<Insert> attempts = proxy.inserts();
    assertThat(attempts)
        .as("every attempt of the INSERT carries the first one's token")
        .extracting(Insert::deduplicationToken)
        .containsOnly(attempts.get(0).deduplicationToken())
        .doesNotContainNull();
  }

  @Test
  void asynchronousDistributedInsertsAreRefusedAtStart() throws Exception {
    ShardedRows rows = new ShardedRows(cluster, DATABASE, "refused");
    Path work = ClusterRuns.work("refused");
    Map<String, String> env = environment(null, rows);
    env.put("INSERT_DISTRIBUTED_SYNC", "false");
    ServiceProcess service =
        new ServiceProcess(
            env, List.of("-Xmx256m"), work.resolve("service.log"), LocalClickHouse.freePort());
    assertThat(service.startExpectingExit()).isEqualTo(2);
    assertThat(service.output())
        .contains(
            "INSERT_DISTRIBUTED_SYNC: false is refused: a Distributed"
                + " table would answer once the rows are queued on the server that took the"
                + " INSERT, before they are on their shards");
  }

  /**
   * What the refusal prevents, on the real engine: with insert_distributed_sync=0 (sent here by the
   * proxy's mutation, since the service refuses to), every message is acknowledged while the rows
   * for the other shard are only queued on shard 0 — on no shard at all until the queue is sent. It
   * is also the proof that the account above sees such rows as missing.
   */
  @Test
  void asynchronousInsertsWouldAcknowledgeRowsOnlyQueued() throws Exception {
    ShardedRows rows = new ShardedRows(cluster, DATABASE, "async_queued");
    Path work = ClusterRuns.work("async-queued");
    int messages = 100;
    int rowsEach = 10;
    FaultInjectingProxy proxy = proxy();
    proxy.mutate(Mutation.ASYNC_DISTRIBUTED_INSERTS);
    ServiceProcess service = service(environment(proxy, rows), work);
    DriverRun driver =
        driver(
            service,
            ShardedRows.writeMessages(work.resolve("input.ndjson"), messages, rowsEach),
            work);
    Summary summary = driver.await(120);
    ShardedRows.Account queued = rows.account();
    record("async-distributed-acknowledged", summary, queued, proxy);

    assertThat(summary.acked()).as("every message acknowledged").isEqualTo(messages);
    assertThat(queued.queued()).as("files waiting on shard 0 for shard 1").isPositive();
    assertThat(queued.missing(messages, rowsEach)).as("acknowledged rows on no shard").isNotEmpty();
    cluster.query(0, "SYSTEM FLUSH DISTRIBUTED " + rows.distributed());
    ShardedRows.Account sent = rows.account();
    assertThat(sent.missing(messages, rowsEach)).as("once the queue is sent").isEmpty();
    assertThat(sent.queued()).isZero();
  }

  private FaultInjectingProxy proxy() {
    return started.proxy(cluster.url());
  }

  private Map<String, String> environment(FaultInjectingProxy proxy, ShardedRows rows) {
    Map<String, String> env = rows.environment(proxy == null ? cluster.url() : proxy.url());
    env.put("BATCH_MAX_WAIT_MS", "200");
    env.put("BATCH_LINGER_MS", "5");
    return env;
  }

  private ServiceProcess service(Map<String, String> env, Path work) throws Exception {
    return started.service(env, work).start();
  }

  private DriverRun driver(ServiceProcess service, Path input, Path work) throws Exception {
    return started.driver(DriverRun.start(service.url(), input, work, DriverRun.pubSubLike()));
  }

  private void awaitRowsOnShard0(ShardedRows rows, DriverRun driver, long target)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline && driver.running()) {
      if (cluster.number(0, "SELECT count() FROM " + rows.local()) >= target) {
        return;
      }
      Thread.sleep(20);
    }
  }

  /** Row numbers of message {@code id} that the sharding key gives shard {@code shard}. */
  private List<Integer> rowsOfShard(String id, int shard, int count) {
    String numbers =
        cluster.query(
            0,
            "SELECT arrayStringConcat(groupArray(toString(n)), ',') FROM (SELECT toUInt32(number)"
                + " AS n FROM numbers(100000) WHERE cityHash64('"
                + id
                + "', n) % "
                + cluster.size()
                + " = "
                + shard
                + " LIMIT "
                + count
                + ")");
    return Arrays.stream(numbers.split(",")).map(Integer::valueOf).toList();
  }

  private static long failed(FaultInjectingProxy proxy) {
    return proxy.inserts().stream().filter(insert -> insert.status() != 200).count();
  }

  private static void record(
      String scenario, Summary summary, ShardedRows.Account account, FaultInjectingProxy proxy) {
    long inserts = proxy.inserts().size();
    long failed = failed(proxy);
    Results.record(
        "cluster.tsv",
        String.format(
            Locale.ROOT,
            "%s\t%s\tinserts=%d\tfailed-inserts=%d\t%s",
            scenario,
            summary == null
                ? "single push"
                : "acked=" + summary.acked() + "\tretried=" + summary.retried(),
            inserts,
            failed,
            account));
  }
}
