package dev.pubsubclickhouse.reliability;

import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.LocalCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A target table on a {@link LocalCluster}: a local table on every shard in the exactly-once layout
 * of the README (ReplacingMergeTree ordered by the message id and the row, with
 * non_replicated_deduplication_window, which drops a retried INSERT's token as a Replicated table
 * does), and a Distributed table over them on shard 0, sharded by the message id and the row. Also
 * the messages sent to it (each a JSON array of rows) and the account of where their rows are.
 */
final class ShardedRows {
  static final String COLUMNS =
      "(id String, row UInt32, body String, _pubsub_message_id String,"
          + " _ingested_at DateTime64(3))";

  /** How the Distributed table picks a row's shard: the same row always goes to the same one. */
  static final String SHARDING_KEY = "cityHash64(_pubsub_message_id, row)";

  private final LocalCluster cluster;
  private final String database;
  private final String name;

  ShardedRows(LocalCluster cluster, String database, String name) {
    this.cluster = cluster;
    this.database = database;
    this.name = name;
    cluster.executeOnEveryShard("CREATE DATABASE IF NOT EXISTS " + database);
    cluster.executeOnEveryShard(
        "CREATE TABLE "
            + local()
            + " "
            + COLUMNS
            + " ENGINE = ReplacingMergeTree(_ingested_at) ORDER BY (_pubsub_message_id, row)"
            + " SETTINGS non_replicated_deduplication_window = 1000");
    cluster.query(
        0,
        "CREATE TABLE "
            + distributed()
            + " AS "
            + local()
            + " ENGINE = Distributed("
            + LocalCluster.NAME
            + ", "
            + database
            + ", "
            + name
            + "_local, "
            + SHARDING_KEY
            + ")");
  }

  /**
   * Settings pointing the service at the Distributed table through {@code url} (the cluster's or a
   * proxy's), logged in as default; a map the caller may add to.
   */
  Map<String, String> environment(String url) {
    Map<String, String> env = new ClickHouseServer(url, "default", "").environment(database);
    env.put("CLICKHOUSE_TABLE", table());
    return env;
  }

  String database() {
    return database;
  }

  /** The Distributed table's name without the database: what CLICKHOUSE_TABLE names. */
  String table() {
    return name;
  }

  String distributed() {
    return database + "." + name;
  }

  String local() {
    return database + "." + name + "_local";
  }

  /** One message's data: {@code rows} rows of message {@code id}, with these row numbers. */
  static String message(String id, List<Integer> rows) {
    StringBuilder data = new StringBuilder("[");
    for (int row : rows) {
      if (data.length() > 1) {
        data.append(',');
      }
      data.append("{\"id\":\"")
          .append(id)
          .append("\",\"row\":")
          .append(row)
          .append(",\"body\":\"row ")
          .append(row)
          .append(" of ")
          .append(id)
          .append(", with some text to give it a realistic size\"}");
    }
    return data.append(']').toString();
  }

  /** {@code count} messages of {@code rowsEach} rows, as the push driver's NDJSON input. */
  static Path writeMessages(Path file, int count, int rowsEach) throws IOException {
    List<Integer> rows = new ArrayList<>();
    for (int r = 0; r < rowsEach; r++) {
      rows.add(r);
    }
    List<String> lines = new ArrayList<>(count);
    for (int i = 1; i <= count; i++) {
      lines.add(message(messageId(i), rows));
    }
    return Files.write(file, lines, StandardCharsets.UTF_8);
  }

  static String messageId(int i) {
    return String.format(Locale.ROOT, "m-%06d", i);
  }

  /**
   * Where the rows are.
   *
   * @param copies how many times each (id, row) is stored, over all shards
   * @param misplaced rows on a shard the sharding key does not give them
   * @param queued files in the Distributed table's queue on shard 0: rows not yet on their shards
   * @param finalRows {@code count() FROM <distributed> FINAL}: one per (message, row)
   * @param duplicatedBlocks blocks each shard dropped as a repeat of a token it had (system.events
   *     DuplicatedInsertedBlocks)
   */
  record Account(
      Map<String, Long> copies,
      long misplaced,
      long queued,
      long finalRows,
      List<Long> duplicatedBlocks) {

    long storedRows() {
      return copies.values().stream().mapToLong(Long::longValue).sum();
    }

    long duplicates() {
      return copies.values().stream().mapToLong(n -> n - 1).sum();
    }

    /** The expected rows of {@code count} messages of {@code rowsEach} that no shard holds. */
    List<String> missing(int count, int rowsEach) {
      List<String> missing = new ArrayList<>();
      for (int i = 1; i <= count; i++) {
        for (int r = 0; r < rowsEach; r++) {
          if (!copies.containsKey(messageId(i) + "/" + r)) {
            missing.add(messageId(i) + "/" + r);
          }
        }
      }
      return missing;
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "stored-rows=%d distinct-rows=%d duplicates=%d misplaced=%d queued-files=%d final=%d"
              + " duplicated-blocks-per-shard=%s",
          storedRows(),
          copies.size(),
          duplicates(),
          misplaced,
          queued,
          finalRows,
          duplicatedBlocks);
    }
  }

  Account account() {
    Map<String, Long> copies = new HashMap<>();
    long misplaced = 0;
    List<Long> duplicatedBlocks = new ArrayList<>();
    for (int shard = 0; shard < cluster.size(); shard++) {
      String rows =
          cluster.query(
              shard, "SELECT id, row, count() FROM " + local() + " GROUP BY id, row FORMAT TSV");
      for (String line : rows.lines().filter(l -> !l.isBlank()).toList()) {
        String[] fields = line.split("\t");
        copies.merge(fields[0] + "/" + fields[1], Long.parseLong(fields[2]), Long::sum);
      }
      misplaced +=
          cluster.number(
              shard,
              "SELECT count() FROM "
                  + local()
                  + " WHERE "
                  + SHARDING_KEY
                  + " % "
                  + cluster.size()
                  + " != "
                  + shard);
      duplicatedBlocks.add(duplicatedBlocks(shard));
    }
    long queued =
        cluster.number(
            0,
            "SELECT sum(data_files) FROM system.distribution_queue WHERE database = '"
                + database
                + "' AND table = '"
                + name
                + "'");
    long finalRows = cluster.number(0, "SELECT count() FROM " + distributed() + " FINAL");
    return new Account(copies, misplaced, queued, finalRows, duplicatedBlocks);
  }

  /** Blocks shard {@code shard} has dropped as repeats since it started. */
  long duplicatedBlocks(int shard) {
    String value =
        cluster.query(
            shard, "SELECT value FROM system.events WHERE event = 'DuplicatedInsertedBlocks'");
    return value.isBlank() ? 0 : Long.parseLong(value.trim());
  }
}
