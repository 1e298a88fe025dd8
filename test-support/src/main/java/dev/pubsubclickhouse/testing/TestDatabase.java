package dev.pubsubclickhouse.testing;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.client.api.query.QuerySettings;
import com.clickhouse.data.ClickHouseFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** A database of its own for one test class, on the shared test server. */
public final class TestDatabase {
  private final ClickHouseServer server;
  private final String name;
  private final Client client;

  TestDatabase(ClickHouseServer server, String name, Client client) {
    this.server = server;
    this.name = name;
    this.client = client;
  }

  public ClickHouseServer server() {
    return server;
  }

  public String name() {
    return name;
  }

  /** A client logged in to the server with this database as its default. */
  public Client client() {
    return client;
  }

  /** Runs a statement (DDL, INSERT ... VALUES) in this database. */
  public void execute(String sql) {
    try {
      client.execute(sql).get().close();
    } catch (ExecutionException e) {
      throw new IllegalStateException(sql + ": " + e.getCause().getMessage(), e.getCause());
    } catch (Exception e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** The result in TabSeparated text, without the last newline. */
  public String query(String sql) {
    QuerySettings settings = new QuerySettings().setFormat(ClickHouseFormat.TabSeparated);
    try (QueryResponse response = client.query(sql, settings).get()) {
      String text = new String(response.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    } catch (ExecutionException e) {
      throw new IllegalStateException(sql + ": " + e.getCause().getMessage(), e.getCause());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException(sql, e);
    }
  }

  public long count(String table) {
    return Long.parseLong(query("SELECT count() FROM " + name + "." + table));
  }

  /**
   * Makes system.query_log hold every query of this database that has been answered. ClickHouse
   * sends a query's HTTP answer before it queues the query's log entry, and takes the query off
   * system.processes only after that; so this first waits until no other query of this database is
   * running, then flushes. A query still running after 30 s fails the wait, naming it.
   */
  public void flushLogs() {
    String running =
        "SELECT query FROM system.processes WHERE current_database = '"
            + name
            + "' AND query_id != queryID()";
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (String queries = query(running); !queries.isEmpty(); queries = query(running)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("still running after 30 s: " + queries);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for queries to finish", e);
      }
    }
    execute("SYSTEM FLUSH LOGS");
  }

  /**
   * The values the server setting {@code setting} had in the finished queries of this database
   * whose text is LIKE {@code pattern}, each once, sorted, one a line ('' where a query left it at
   * its default); flushes the query log first.
   */
  public String settingOfQueries(String setting, String pattern) {
    flushLogs();
    return query(
        "SELECT DISTINCT Settings['"
            + setting
            + "'] AS value FROM system.query_log WHERE current_database = '"
            + name
            + "' AND type = 'QueryFinish' AND query LIKE '"
            + pattern
            + "' ORDER BY value");
  }
}
