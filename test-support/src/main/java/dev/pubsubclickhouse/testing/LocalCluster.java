package dev.pubsubclickhouse.testing;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A ClickHouse cluster on this machine: one {@link LocalClickHouse} server per shard, each serving
 * the native protocol, all knowing the cluster {@value #NAME} of those shards (one replica each). A
 * {@code Distributed} table on any of them spreads rows over the shards' local tables; {@link
 * #shard(int)} kills and restarts one. Data and each server's {@code server.log} are under {@link
 * #directory()}.
 *
 * <p>What this engine cannot stand for: the asynchronous Distributed queue is not sent in the
 * background (only {@code SYSTEM FLUSH DISTRIBUTED} sends it), and ReplicatedMergeTree does not run
 * (no Keeper). MergeTree with {@code non_replicated_deduplication_window} drops an INSERT retried
 * with the same {@code insert_deduplication_token}, per shard, as a Replicated table would.
 */
public final class LocalCluster implements AutoCloseable {
  /** The cluster's name in {@code remote_servers}. */
  public static final String NAME = "local_cluster";

  private final Path directory;
  private final List<LocalClickHouse> shards;

  private LocalCluster(Path directory, List<LocalClickHouse> shards) {
    this.directory = directory;
    this.shards = List.copyOf(shards);
  }

  /** Starts {@code shardCount} servers with their data under {@code directory}. */
  public static LocalCluster start(Path directory, int shardCount) {
    List<Integer> tcpPorts = new ArrayList<>();
    for (int i = 0; i < shardCount; i++) {
      tcpPorts.add(LocalClickHouse.freePort());
    }
    String addresses =
        tcpPorts.stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","));
    List<LocalClickHouse> shards = new ArrayList<>();
    for (int i = 0; i < shardCount; i++) {
      shards.add(
          LocalClickHouse.shard(directory.resolve("shard-" + i), tcpPorts.get(i), addresses));
    }
    LocalCluster cluster = new LocalCluster(directory, shards);
    try {
      shards.forEach(LocalClickHouse::start);
    } catch (RuntimeException e) {
      cluster.stop();
      throw e;
    }
    return cluster;
  }

  public int size() {
    return shards.size();
  }

  /** The server of shard {@code index} (from 0; {@code _shard_num} and system.clusters count 1). */
  public LocalClickHouse shard(int index) {
    return shards.get(index);
  }

  /** Where clients connect: the server of shard 0. */
  public String url() {
    return shards.get(0).url();
  }

  public Path directory() {
    return directory;
  }

  /** Runs a statement on every shard's server (this engine has no ON CLUSTER: no Keeper). */
  public void executeOnEveryShard(String sql) {
    for (int i = 0; i < shards.size(); i++) {
      query(i, sql);
    }
  }

  /**
   * Runs a statement on shard {@code index}'s server as {@code default}; returns the result in
   * TabSeparated without the last newline.
   */
  public String query(int index, String sql) {
    return ClickHouseHttp.post(
        URI.create(
            shards.get(index).url()
                + "/?default_format=TabSeparated&query_id="
                + URLEncoder.encode("cluster-test-" + System.nanoTime(), StandardCharsets.UTF_8)),
        HttpRequest.newBuilder(),
        sql,
        "shard " + index + ": ");
  }

  public long number(int index, String sql) {
    return Long.parseLong(query(index, sql).trim());
  }

  /** Stops every server (the ones already down are left as they are). */
  public void stop() {
    RuntimeException failure = null;
    for (LocalClickHouse shard : shards) {
      try {
        shard.stop();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void close() {
    stop();
  }
}
