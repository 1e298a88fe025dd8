package dev.pubsubclickhouse.core.insert;

import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.HashMap;
import java.util.Map;

/** Inserters for a test's database on the harness's server. */
public final class TestInserters {
  private TestInserters() {}

  /** The configuration the programs would read for {@code table} of the test's database. */
  public static ClickHouseConfig config(
      TestDatabase database, String table, Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(extra);
    env.put("CLICKHOUSE_URL", database.server().url());
    env.put("CLICKHOUSE_DATABASE", database.name());
    env.put("CLICKHOUSE_TABLE", table);
    env.putIfAbsent("CLICKHOUSE_USER", database.server().user());
    env.putIfAbsent("CLICKHOUSE_PASSWORD", database.server().password());
    return ClickHouseConfig.read(new ConfigReader(env), new SecretManagerAccess(Map.of()));
  }

  /** An inserter with the defaults, in the format the server supports. */
  public static ClickHouseInserter of(TestDatabase database) {
    return of(database, InsertFormat.supportedBy(database.client()));
  }

  public static ClickHouseInserter of(TestDatabase database, InsertFormat format) {
    ClickHouseConfig config = config(database, "unused", Map.of());
    return new ClickHouseInserter(
        ClickHouseHttp.open(config, "core-test"), format, config.insertOptions());
  }
}
