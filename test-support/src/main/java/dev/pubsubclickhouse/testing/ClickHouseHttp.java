package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A statement posted to a ClickHouse HTTP interface, as {@link Sql} and {@link LocalCluster} do.
 */
final class ClickHouseHttp {
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private ClickHouseHttp() {}

  /**
   * Posts {@code sql} to {@code uri} with the headers {@code request} adds; returns the answer
   * without its last newline. A failure names {@code where} (empty, or e.g. {@code "shard 1: "}),
   * the statement and what ClickHouse said.
   */
  static String post(URI uri, HttpRequest.Builder request, String sql, String where) {
    HttpRequest post =
        request
            .uri(uri)
            .timeout(Duration.ofSeconds(120))
            .POST(HttpRequest.BodyPublishers.ofString(sql))
            .build();
    try {
      HttpResponse<String> response = HTTP.send(post, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            where + sql + ": HTTP " + response.statusCode() + " " + response.body());
      }
      String text = response.body();
      return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    } catch (IOException e) {
      throw new IllegalStateException(where + sql + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
