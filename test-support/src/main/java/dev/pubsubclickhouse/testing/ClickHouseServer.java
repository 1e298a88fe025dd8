package dev.pubsubclickhouse.testing;

import java.util.HashMap;
import java.util.Map;

/** Where a test's ClickHouse is and how to log in to it. */
public record ClickHouseServer(String url, String user, String password) {
  /**
   * The settings that point the service, the backfill or replay at this server (CLICKHOUSE_URL,
   * CLICKHOUSE_USER and CLICKHOUSE_PASSWORD), in a map the caller may add to.
   */
  public Map<String, String> environment() {
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", url);
    env.put("CLICKHOUSE_USER", user);
    env.put("CLICKHOUSE_PASSWORD", password);
    return env;
  }

  /** {@link #environment()} with CLICKHOUSE_DATABASE {@code database}. */
  public Map<String, String> environment(String database) {
    Map<String, String> env = environment();
    env.put("CLICKHOUSE_DATABASE", database);
    return env;
  }

  @Override
  public String toString() {
    return url + " as " + user;
  }
}
