package dev.pubsubclickhouse.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseClusterTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.LocalCluster;
import dev.pubsubclickhouse.testing.ServiceProcess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One shard of a Distributed table refuses a row of a batch (a CHECK constraint of its local table,
 * or a materialized view on it that fails) while the other shard stores its rows: the service finds
 * the refused message by splitting the batch, dead-letters it, and stores every other message's
 * rows. Nothing acknowledged is missing; in the README's exactly-once layout {@code FINAL} sees
 * each row once, although the shard that stored its part of the first attempt takes the same rows
 * again in the split's INSERTs (their tokens differ), as the README says.
 *
 * <p>The messages go in one batch, the refused one first (a linger gathers them): its rows are at
 * the head of the INSERT, so the refusal comes before the later blocks of that shard are stored.
 */
@ClickHouseClusterTest(shards = 2)
class ShardRefusalIT {
  private static final String DATABASE = "refusal_it";
  private static final int MESSAGES = 20;
  private static final int ROWS_PER_MESSAGE = 100;

  private final LocalCluster cluster;
  private final Started started = new Started();

  ShardRefusalIT(LocalCluster cluster) {
    this.cluster = cluster;
  }

  @AfterEach
  void stopWhatRuns() throws Exception {
    started.close();
  }

  @Test
  void aRowOneShardsConstraintRefusesIsDeadLetteredAndEveryOtherRowIsStored() throws Exception {
    ShardedRows rows = new ShardedRows(cluster, DATABASE, "constraint");
    cluster.query(
        1,
        "ALTER TABLE " + rows.local() + " ADD CONSTRAINT no_poison CHECK body NOT LIKE '%poison%'");
    Outcome outcome = pushOneBatchWithAPoisonRow(rows, "constraint");

    outcome.assertNothingAcknowledgedIsMissing();
    assertThat(outcome.poisonRowsOnShard(1)).as("the refusing shard has none of its rows").isZero();
  }

  /**
   * A view on shard 1 fails: ClickHouse says "while pushing to view", which on a single table means
   * the rows reached the table. On a Distributed table it does not: the blocks shard 1 had not yet
   * stored are on no shard, and the INSERT's written_rows counts more rows than it sent.
   */
  @Test
  void aViewFailingOnOneShardLosesNoRowOfTheOthers() throws Exception {
    ShardedRows rows = new ShardedRows(cluster, DATABASE, "view");
    cluster.query(
        1,
        "CREATE TABLE "
            + DATABASE
            + ".view_rows (id String, row UInt32) ENGINE = MergeTree ORDER BY (id, row)");
    cluster.query(
        1,
        "CREATE MATERIALIZED VIEW "
            + DATABASE
            + ".refusing_view TO "
            + DATABASE
            + ".view_rows AS SELECT id, row + throwIf(body LIKE '%poison%', 'the view refuses it')"
            + " AS row FROM "
            + rows.local());
    Outcome outcome = pushOneBatchWithAPoisonRow(rows, "view");

    outcome.assertNothingAcknowledgedIsMissing();
  }

  /** Where the rows ended, and the assertions every scenario shares. */
  private final class Outcome {
    final ShardedRows rows;
    final String poisonId;
    final List<Integer> statuses;
    final ShardedRows.Account account;
    final String deadLetters;
    final List<Integer> insertStatuses;

    Outcome(
        ShardedRows rows,
        String poisonId,
        List<Integer> statuses,
        String deadLetters,
        List<Integer> insertStatuses) {
      this.rows = rows;
      this.insertStatuses = insertStatuses;
      this.poisonId = poisonId;
      this.statuses = statuses;
      this.account = rows.account();
      this.deadLetters = deadLetters;
    }

    void assertNothingAcknowledgedIsMissing() {
      assertThat(insertStatuses.get(0))
          .as("the first INSERT, of the whole batch, failed")
          .isNotEqualTo(200);
      assertThat(insertStatuses)
          .as("the batch formed: far fewer INSERTs than messages, even split to find one")
          .hasSizeLessThan(MESSAGES);
      assertThat(statuses).as("every message answered 204").containsOnly(204);
      List<String> missing =
          account.missing(MESSAGES, ROWS_PER_MESSAGE).stream()
              .filter(row -> !row.startsWith(poisonId + "/"))
              .toList();
      assertThat(missing).as("rows of the acknowledged good messages on no shard").isEmpty();
      assertThat(deadLetters.lines().toList())
          .as("the dead letters: the refused message, once")
          .hasSize(1)
          .allMatch(line -> line.contains(poisonId));
      assertThat(
              cluster.number(
                  0,
                  "SELECT count() FROM "
                      + rows.distributed()
                      + " FINAL WHERE id != '"
                      + poisonId
                      + "'"))
          .as("exactly-once layout, count() FINAL of the good messages: each row once")
          .isEqualTo((long) (MESSAGES - 1) * ROWS_PER_MESSAGE);
      assertThat(account.misplaced()).isZero();
      assertThat(account.queued()).isZero();
    }

    long poisonRowsOnShard(int shard) {
      return cluster.number(
          shard, "SELECT count() FROM " + rows.local() + " WHERE id = '" + poisonId + "'");
    }
  }

  private Outcome pushOneBatchWithAPoisonRow(ShardedRows rows, String scenario) throws Exception {
    Path work = ClusterRuns.work("refusal-" + scenario);
    cluster.query(
        0, "CREATE TABLE " + rows.distributed() + "_errors " + Ledger.ERRORS.replace("\n", " "));
    FaultInjectingProxy proxy = started.proxy(cluster.url());
    proxy.overrideSettings(ClusterRuns.MANY_BLOCKS);
    Map<String, String> env = rows.environment(proxy.url());
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", rows.table() + "_errors");
    env.put("BATCH_LINGER_MS", "500");
    ServiceProcess service = started.service(env, work);
    service.start();

    String poisonId = ShardedRows.messageId(1);
    int poisonRow = firstRowOfShard(poisonId, 1);
    List<CompletableFuture<Integer>> answers = new ArrayList<>();
    answers.add(
        CompletableFuture.supplyAsync(
            () -> ClusterRuns.push(service, poisonId, messageData(poisonId, poisonRow))));
    Thread.sleep(50); // the refused message leads the batch
    IntStream.rangeClosed(2, MESSAGES)
        .mapToObj(ShardedRows::messageId)
        .forEach(
            id ->
                answers.add(
                    CompletableFuture.supplyAsync(
                        () -> ClusterRuns.push(service, id, messageData(id, -1)))));
    List<Integer> statuses = answers.stream().map(CompletableFuture::join).toList();
    String deadLetters =
        cluster.query(0, "SELECT raw_message FROM " + rows.distributed() + "_errors FORMAT TSVRaw");
    Outcome outcome =
        new Outcome(
            rows,
            poisonId,
            statuses,
            deadLetters,
            proxy.inserts().stream().map(FaultInjectingProxy.Insert::status).toList());
    Results.record(
        "cluster.tsv",
        String.format(
            Locale.ROOT,
            "shard-refusal-%s\tinserts=%d\t%s",
            scenario,
            proxy.inserts().size(),
            outcome.account));
    return outcome;
  }

  /** One message's data: rows 0..99, the row {@code poisonRow} (if any) with a poison body. */
  private static String messageData(String id, int poisonRow) {
    String data = ShardedRows.message(id, IntStream.range(0, ROWS_PER_MESSAGE).boxed().toList());
    if (poisonRow < 0) {
      return data;
    }
    String row = "\"row\":" + poisonRow + ",\"body\":\"row " + poisonRow;
    return data.replace(row, "\"row\":" + poisonRow + ",\"body\":\"poison " + poisonRow);
  }

  /** The first row number of message {@code id} that the sharding key gives shard {@code shard}. */
  private int firstRowOfShard(String id, int shard) {
    String row =
        cluster.query(
            0,
            "SELECT toUInt32(number) AS n FROM numbers(1000) WHERE cityHash64('"
                + id
                + "', n) % "
                + cluster.size()
                + " = "
                + shard
                + " LIMIT 1");
    return Integer.parseInt(row.trim());
  }
}
