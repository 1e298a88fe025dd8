package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * Statements against a ClickHouse over its HTTP interface, independent of the service under test
 * (its client, its retries): what the tests use to set up tables and to count what arrived.
 */
public final class Sql {
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private final String url;
  private final String authorization;
  private final String database;

  public Sql(String url, String user, String password, String database) {
    this.url = url.endsWith("/") ? url : url + "/";
    this.authorization =
        "Basic "
            + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    this.database = database;
  }

  /** The test class's database on the shared test server. */
  public static Sql of(TestDatabase database) {
    ClickHouseServer server = database.server();
    return new Sql(server.url(), server.user(), server.password(), database.name());
  }

  public String database() {
    return database;
  }

  /** Runs one statement; returns its TabSeparated result without the last newline. */
  public String query(String sql) {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(
                    url
                        + "?database="
                        + URLEncoder.encode(database, StandardCharsets.UTF_8)
                        + "&default_format=TabSeparated"))
            .timeout(Duration.ofSeconds(120))
            .header("Authorization", authorization)
            .POST(HttpRequest.BodyPublishers.ofString(sql))
            .build();
    try {
      HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            sql + ": HTTP " + response.statusCode() + " " + response.body());
      }
      String text = response.body();
      return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    } catch (IOException e) {
      throw new IllegalStateException(sql + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public long number(String sql) {
    return Long.parseLong(query(sql).trim());
  }

  /** Null when ClickHouse does not answer. */
  public Long numberOrNull(String sql) {
    try {
      return number(sql);
    } catch (RuntimeException e) {
      return null;
    }
  }
}
