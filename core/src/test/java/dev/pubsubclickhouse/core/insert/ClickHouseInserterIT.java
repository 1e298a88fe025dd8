package dev.pubsubclickhouse.core.insert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.clickhouse.client.api.Client;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@ClickHouseTest
class ClickHouseInserterIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final TestDatabase database;

  ClickHouseInserterIT(TestDatabase database) {
    this.database = database;
  }

  private ClickHouseConfig config(String table, Map<String, String> extra) {
    Map<String, String> env = new java.util.HashMap<>(extra);
    env.put("CLICKHOUSE_URL", database.server().url());
    env.put("CLICKHOUSE_DATABASE", database.name());
    env.put("CLICKHOUSE_TABLE", table);
    env.putIfAbsent("CLICKHOUSE_USER", database.server().user());
    env.putIfAbsent("CLICKHOUSE_PASSWORD", database.server().password());
    return ClickHouseConfig.read(new ConfigReader(env), new SecretManagerAccess(Map.of()));
  }

  private static RowBinaryOutput rows(RowEncoder encoder, String... json) throws Exception {
    RowBinaryOutput out = new RowBinaryOutput();
    for (String row : json) {
      encoder.encode(JSON.readTree(row), out);
    }
    return out;
  }

  @Test
  void insertsCarryClientNameAndPassThroughSettings() throws Exception {
    database.execute("CREATE TABLE settings_probe (v UInt32) ENGINE = MergeTree ORDER BY v");
    ClickHouseConfig config =
        config(
            "settings_probe", Map.of("CLICKHOUSE_SETTINGS", "max_threads=3", "INSERT_QUORUM", "1"));
    try (Client client = ClickHouseClients.open(config, "inserter-it", 2)) {
      RowEncoder encoder = RowEncoder.forTable(new SchemaReader(client).read(config.table()));
      new ClickHouseInserter(client, config.insertOptions())
          .insert(
              config.table(),
              encoder.columnNames(),
              rows(encoder, "{\"v\":1}", "{\"v\":2}"),
              "tok-a",
              false);
    }
    database.flushLogs();
    assertThat(
            database.query(
                "SELECT written_rows, Settings['max_threads'], Settings['insert_deduplication_token'],"
                    + " Settings['max_insert_block_size'], Settings['insert_quorum'] FROM system.query_log"
                    + " WHERE type = 'QueryFinish' AND query_kind = 'Insert' AND http_user_agent LIKE 'inserter-it %'"
                    + " AND query LIKE '%settings_probe%' AND current_database = '"
                    + database.name()
                    + "'"))
        .isEqualTo("2\t3\ttok-a\t1000000\t1");
  }

  @Test
  void theSameDeduplicationTokenWritesOnce() throws Exception {
    database.execute(
        "CREATE TABLE dedup (v UInt32) ENGINE = MergeTree ORDER BY v"
            + " SETTINGS non_replicated_deduplication_window = 100");
    ClickHouseConfig config = config("dedup", Map.of());
    try (Client client = ClickHouseClients.open(config, "inserter-it", 2)) {
      RowEncoder encoder = RowEncoder.forTable(new SchemaReader(client).read(config.table()));
      ClickHouseInserter inserter = new ClickHouseInserter(client, config.insertOptions());
      for (int i = 0; i < 3; i++) {
        inserter.insert(
            config.table(), encoder.columnNames(), rows(encoder, "{\"v\":7}"), "page-1", false);
      }
      inserter.insert(
          config.table(), encoder.columnNames(), rows(encoder, "{\"v\":7}"), "page-2", false);
    }
    assertThat(database.count("dedup")).isEqualTo(2);
  }

  @Test
  void aPasswordUserLogsIn() throws Exception {
    database.execute("CREATE TABLE auth (v UInt32) ENGINE = Memory");
    ClickHouseConfig config =
        config(
            "auth",
            Map.of(
                "CLICKHOUSE_USER", LocalClickHouse.PIPELINE_USER,
                "CLICKHOUSE_PASSWORD", LocalClickHouse.PIPELINE_PASSWORD));
    org.junit.jupiter.api.Assumptions.assumeTrue(
        database.server().url().startsWith("http://127.0.0.1"),
        "the local server has the pipeline user");
    try (Client client = ClickHouseClients.open(config, "inserter-it", 2)) {
      RowEncoder encoder = RowEncoder.forTable(new SchemaReader(client).read(config.table()));
      new ClickHouseInserter(client, config.insertOptions())
          .insert(config.table(), encoder.columnNames(), rows(encoder, "{\"v\":1}"), null, false);
    }
    assertThat(database.count("auth")).isEqualTo(1);
  }

  @Test
  void aWrongPasswordIsFatalAndItsTextIsNotInTheError() throws Exception {
    database.execute("CREATE TABLE wrong_password (v UInt32) ENGINE = Memory");
    ClickHouseConfig config =
        config(
            "wrong_password",
            Map.of("CLICKHOUSE_USER", "pipeline", "CLICKHOUSE_PASSWORD", "not-the-password-42"));
    try (Client client = ClickHouseClients.open(config, "inserter-it", 2)) {
      RowBinaryOutput out = new RowBinaryOutput();
      out.writeByte(0);
      out.writeIntLE(1);
      assertThatThrownBy(
              () ->
                  new ClickHouseInserter(client, config.insertOptions())
                      .insert(config.table(), List.of("v"), out, null, false))
          .isInstanceOfSatisfying(
              InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.FATAL))
          .hasMessageNotContaining("not-the-password-42");
    }
  }

  @Test
  void aConstraintViolationIsBadData() throws Exception {
    database.execute(
        "CREATE TABLE checked (v UInt32, CONSTRAINT small CHECK v < 10) ENGINE = MergeTree ORDER BY v");
    ClickHouseConfig config = config("checked", Map.of());
    try (Client client = ClickHouseClients.open(config, "inserter-it", 2)) {
      RowEncoder encoder = RowEncoder.forTable(new SchemaReader(client).read(config.table()));
      assertThatThrownBy(
              () ->
                  new ClickHouseInserter(client, config.insertOptions())
                      .insert(
                          config.table(),
                          encoder.columnNames(),
                          rows(encoder, "{\"v\":1}", "{\"v\":11}"),
                          null,
                          false))
          .isInstanceOfSatisfying(
              InsertException.class,
              e -> {
                assertThat(e.kind()).isEqualTo(FailureKind.BAD_DATA);
                assertThat(e.serverCode()).isEqualTo(469);
              });
    }
    assertThat(database.count("checked")).isZero();
  }

  @Test
  void aDroppedColumnIsASchemaChange() throws Exception {
    database.execute("CREATE TABLE changing (a UInt32, b String) ENGINE = MergeTree ORDER BY a");
    ClickHouseConfig config = config("changing", Map.of());
    try (Client client = ClickHouseClients.open(config, "inserter-it", 2)) {
      RowEncoder stale = RowEncoder.forTable(new SchemaReader(client).read(config.table()));
      database.execute("ALTER TABLE changing DROP COLUMN b");
      assertThatThrownBy(
              () ->
                  new ClickHouseInserter(client, config.insertOptions())
                      .insert(
                          config.table(),
                          stale.columnNames(),
                          rows(stale, "{\"a\":1,\"b\":\"x\"}"),
                          null,
                          false))
          .isInstanceOfSatisfying(
              InsertException.class,
              e -> assertThat(e.kind()).isEqualTo(FailureKind.SCHEMA_CHANGED));
    }
  }

  @Test
  void aMissingTableIsFatal() throws Exception {
    ClickHouseConfig config = config("no_such_table", Map.of());
    try (Client client = ClickHouseClients.open(config, "inserter-it", 2)) {
      RowBinaryOutput out = new RowBinaryOutput();
      out.writeByte(0);
      out.writeIntLE(1);
      assertThatThrownBy(
              () ->
                  new ClickHouseInserter(client, config.insertOptions())
                      .insert(
                          new TableName(database.name(), "no_such_table"),
                          List.of("v"),
                          out,
                          null,
                          false))
          .isInstanceOfSatisfying(
              InsertException.class,
              e -> {
                assertThat(e.kind()).isEqualTo(FailureKind.FATAL);
                assertThat(e.serverCode()).isEqualTo(60);
              });
    }
  }
}
