package dev.pubsubclickhouse.reliability;

import dev.pubsubclickhouse.testing.ServiceProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

/** What the cluster ITs share: INSERTs made many blocks, one push, a run's directory. */
final class ClusterRuns {
  /**
   * Settings the proxy puts on every INSERT so that it is many blocks of 100 rows, each a part of
   * its own on its shard: a shard that fails mid-INSERT leaves the blocks the others already stored
   * (a partial write). With ClickHouse's defaults an INSERT smaller than
   * min_insert_block_size_rows/bytes (about 1M rows, 256 MB) is one block per shard, and a partial
   * write happens only when a shard fails while the INSERT finishes: rarer, and left to chance. The
   * service refuses these settings itself: only the proxy can set them.
   */
  static final Map<String, String> MANY_BLOCKS =
      Map.of(
          "max_insert_block_size",
          "100",
          "min_insert_block_size_rows",
          "0",
          "min_insert_block_size_bytes",
          "0");

  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private ClusterRuns() {}

  /** One wrapped push request, as Pub/Sub sends it; returns the status. */
  static int push(ServiceProcess service, String messageId, String data) {
    String body =
        "{\"message\":{\"data\":\""
            + Base64.getEncoder().encodeToString(data.getBytes(StandardCharsets.UTF_8))
            + "\",\"messageId\":\""
            + messageId
            + "\",\"publishTime\":\"2026-01-15T12:34:56.789Z\"},"
            + "\"subscription\":\"projects/test/subscriptions/push\"}";
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create(service.url().toString()))
                  .timeout(Duration.ofSeconds(90))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A run's directory, kept under target/ so that the logs of a failed run can be read. */
  static Path work(String name) throws Exception {
    return Results.runDirectory("cluster-" + name);
  }
}
