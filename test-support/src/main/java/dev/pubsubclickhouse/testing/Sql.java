package dev.pubsubclickhouse.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Statements against a ClickHouse over its HTTP interface, independent of the service under test
 * (its client, its retries): what the tests use to set up tables and to count what arrived.
 */
public final class Sql {
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
    return ClickHouseHttp.post(
        URI.create(
            url
                + "?database="
                + URLEncoder.encode(database, StandardCharsets.UTF_8)
                + "&default_format=TabSeparated"),
        HttpRequest.newBuilder().header("Authorization", authorization),
        sql,
        "");
  }

  /** Runs one query; returns its rows, each as JSON ({@code FORMAT JSONEachRow}). */
  public List<JsonNode> jsonRows(String query) {
    List<JsonNode> rows = new ArrayList<>();
    for (String line : query(query + " FORMAT JSONEachRow").split("\n")) {
      if (!line.isBlank()) {
        rows.add(JsonValues.read(line));
      }
    }
    return rows;
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
