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
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Duration;
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
    env.putIfAbsent("CLICKHOUSE_URL", database.server().url());
    env.put("CLICKHOUSE_DATABASE", database.name());
    env.put("CLICKHOUSE_TABLE", table);
    env.putIfAbsent("CLICKHOUSE_USER", database.server().user());
    env.putIfAbsent("CLICKHOUSE_PASSWORD", database.server().password());
    return ClickHouseConfig.read(new ConfigReader(env), new SecretManagerAccess(Map.of()));
  }

  /**
   * The INSERT format is asked of the server through the harness's own client: asked through a
   * client with the test's short timeouts, the question itself timed out on a loaded machine.
   */
  private ClickHouseInserter inserter(ClickHouseConfig config) {
    return new ClickHouseInserter(
        ClickHouseHttp.open(config, "inserter-it"),
        InsertFormat.supportedBy(database.client()),
        config.insertOptions());
  }

  /** The encoder of the configured table as it is now, read through a client of the config's. */
  private static RowEncoder encoder(ClickHouseConfig config) {
    try (Client client = ClickHouseClients.open(config, "inserter-it", 2)) {
      return RowEncoder.forTable(new SchemaReader(client).read(config.table()));
    }
  }

  /** One INSERT of these JSON rows into the configured table, by a new inserter. */
  private void insert(ClickHouseConfig config, RowEncoder encoder, String token, String... json)
      throws Exception {
    inserter(config).insert(config.table(), columns(encoder), rows(encoder, json), token);
  }

  /** Columns of a raw row of one UInt32 column v. */
  private static final InsertColumns ONE_UINT32 =
      new InsertColumns(List.of("v"), List.of("UInt32"), false);

  /** A raw row for {@link #ONE_UINT32}, written without a table's encoder. */
  private static RowBinaryOutput oneUInt32Row() {
    RowBinaryOutput out = new RowBinaryOutput();
    out.writeByte(0);
    out.writeIntLE(1);
    return out;
  }

  private static InsertColumns columns(RowEncoder encoder) {
    return new InsertColumns(
        encoder.columnNames(), encoder.columnTypes(), encoder.readsJsonAsString());
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
    insert(config, encoder(config), "tok-a", "{\"v\":1}", "{\"v\":2}");
    database.flushLogs();
    assertThat(
            database.query(
                "SELECT http_user_agent, written_rows, Settings['max_threads'],"
                    + " Settings['insert_deduplication_token'],"
                    + " Settings['max_insert_block_size'], Settings['insert_quorum'] FROM system.query_log"
                    + " WHERE type = 'QueryFinish' AND query_kind = 'Insert' AND http_user_agent LIKE 'inserter-it%'"
                    + " AND query LIKE '%settings_probe%' AND current_database = '"
                    + database.name()
                    + "'"))
        .isEqualTo("inserter-it\t2\t3\ttok-a\t1000000\t1");
  }

  @Test
  void anAttemptPastInsertTimeoutIsSaidToHaveTimedOutNotThatASocketClosed() throws Exception {
    database.execute("CREATE TABLE timed_out (v UInt32) ENGINE = MergeTree ORDER BY v");
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url())) {
      ClickHouseConfig config =
          config(
              "timed_out",
              Map.of(
                  "CLICKHOUSE_URL", proxy.url(), "INSERT_TIMEOUT_MS", "300", "MAX_RETRIES", "0"));
      RowEncoder encoder =
          RowEncoder.forTable(new SchemaReader(database.client()).read(config.table()));
      proxy.slowInserts(Duration.ofSeconds(2));
      assertThatThrownBy(() -> insert(config, encoder, "t", "{\"v\":1}"))
          .isInstanceOf(InsertException.class)
          .hasMessageContaining("ClickHouse did not answer within PT0.3S");
    }
  }

  @Test
  void noAttemptOutlastsTheTimeTheRowsAreWaitedFor() throws Exception {
    database.execute("CREATE TABLE waited_for (v UInt32) ENGINE = MergeTree ORDER BY v");
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url())) {
      ClickHouseConfig config =
          config(
              "waited_for",
              Map.of(
                  "CLICKHOUSE_URL", proxy.url(), "INSERT_TIMEOUT_MS", "20000", "MAX_RETRIES", "3"));
      RowEncoder encoder = encoder(config);
      ClickHouseInserter inserter = inserter(config);
      proxy.slowInserts(Duration.ofSeconds(3));
      long start = System.nanoTime();
      assertThatThrownBy(
              () ->
                  inserter.insert(
                      config.table(),
                      columns(encoder),
                      rows(encoder, "{\"v\":1}"),
                      "tok-slow",
                      new WaitedFor(() -> true, start + Duration.ofMillis(500).toNanos())))
          .isInstanceOfSatisfying(
              InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.TRANSIENT))
          .hasMessageContaining("when nobody waited for the rows any more");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("cut at the time the rows are waited for, not INSERT_TIMEOUT_MS")
          .isLessThan(Duration.ofMillis(1500));
      assertThatThrownBy(
              () ->
                  inserter.insert(
                      config.table(),
                      columns(encoder),
                      rows(encoder, "{\"v\":2}"),
                      "tok-late",
                      new WaitedFor(() -> true, System.nanoTime() - 1)))
          .isInstanceOfSatisfying(
              InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.TRANSIENT))
          .hasMessageContaining("nobody waits for the rows any more");
      Thread.sleep(3500); // the proxy passes the slow INSERT on after 3 s
      assertThat(proxy.inserts())
          .as("the cut attempt is not tried again, and rows nobody waits for are not sent")
          .extracting(FaultInjectingProxy.Insert::deduplicationToken)
          .containsExactly("tok-slow");
    }
  }

  @Test
  void theSameDeduplicationTokenWritesOnce() throws Exception {
    database.execute(
        "CREATE TABLE dedup (v UInt32) ENGINE = MergeTree ORDER BY v"
            + " SETTINGS non_replicated_deduplication_window = 100");
    ClickHouseConfig config = config("dedup", Map.of());
    RowEncoder encoder = encoder(config);
    ClickHouseInserter inserter = inserter(config);
    for (int i = 0; i < 3; i++) {
      inserter.insert(config.table(), columns(encoder), rows(encoder, "{\"v\":7}"), "page-1");
    }
    inserter.insert(config.table(), columns(encoder), rows(encoder, "{\"v\":7}"), "page-2");
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
    insert(config, encoder(config), null, "{\"v\":1}");
    assertThat(database.count("auth")).isEqualTo(1);
  }

  @Test
  void aWrongPasswordIsNotTheRowsAndItsTextIsNotInTheError() throws Exception {
    database.execute("CREATE TABLE wrong_password (v UInt32) ENGINE = Memory");
    ClickHouseConfig config =
        config(
            "wrong_password",
            Map.of("CLICKHOUSE_USER", "pipeline", "CLICKHOUSE_PASSWORD", "not-the-password-42"));
    try (Client client = ClickHouseClients.open(config, "inserter-it", 2)) {
      assertThatThrownBy(
              () ->
                  new ClickHouseInserter(
                          ClickHouseHttp.open(config, "inserter-it"),
                          InsertFormat.TYPED,
                          config.insertOptions())
                      .insert(config.table(), ONE_UINT32, oneUInt32Row(), null))
          .isInstanceOfSatisfying(
              InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.NOT_THE_ROWS))
          .hasMessageNotContaining("not-the-password-42");
    }
  }

  @Test
  void aConstraintViolationIsARefusal() throws Exception {
    database.execute(
        "CREATE TABLE checked (v UInt32, CONSTRAINT small CHECK v < 10) ENGINE = MergeTree ORDER BY v");
    ClickHouseConfig config = config("checked", Map.of());
    RowEncoder encoder = encoder(config);
    assertThatThrownBy(() -> insert(config, encoder, null, "{\"v\":1}", "{\"v\":11}"))
        .isInstanceOfSatisfying(
            InsertException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(FailureKind.REFUSED);
              assertThat(e.serverCode()).isEqualTo(469);
            });
    assertThat(database.count("checked")).isZero();
  }

  @Test
  void aDroppedColumnIsASchemaChange() throws Exception {
    database.execute("CREATE TABLE changing (a UInt32, b String) ENGINE = MergeTree ORDER BY a");
    ClickHouseConfig config = config("changing", Map.of());
    RowEncoder stale = encoder(config);
    database.execute("ALTER TABLE changing DROP COLUMN b");
    assertThatThrownBy(() -> insert(config, stale, null, "{\"a\":1,\"b\":\"x\"}"))
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.SCHEMA_CHANGED));
  }

  @Test
  void aMissingTableIsNotTheRows() throws Exception {
    ClickHouseConfig config = config("no_such_table", Map.of());
    try (Client client = ClickHouseClients.open(config, "inserter-it", 2)) {
      assertThatThrownBy(
              () ->
                  inserter(config)
                      .insert(
                          new TableName(database.name(), "no_such_table"),
                          ONE_UINT32,
                          oneUInt32Row(),
                          null))
          .isInstanceOfSatisfying(
              InsertException.class,
              e -> {
                assertThat(e.kind()).isEqualTo(FailureKind.NOT_THE_ROWS);
                assertThat(e.serverCode()).isEqualTo(60);
              });
    }
  }

  @Test
  void aColumnRetypedToTheSameWidthIsASchemaChangeNotGarbage() throws Exception {
    database.execute("CREATE TABLE retyped (id UInt32, v Int64) ENGINE = MergeTree ORDER BY id");
    ClickHouseConfig config = config("retyped", Map.of());
    RowEncoder stale = encoder(config);
    database.execute("ALTER TABLE retyped MODIFY COLUMN v Float64");
    assertThatThrownBy(() -> insert(config, stale, null, "{\"id\":1,\"v\":3}"))
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.SCHEMA_CHANGED));
    assertThat(database.count("retyped")).isZero();
  }

  @Test
  void aFailingViewLeavesTheRowsInTheTableAndSaysSo() throws Exception {
    database.execute("CREATE TABLE viewed (v Int32) ENGINE = MergeTree ORDER BY v");
    database.execute("CREATE TABLE view_target (r Int32) ENGINE = MergeTree ORDER BY r");
    database.execute(
        "CREATE MATERIALIZED VIEW viewing TO view_target AS"
            + " SELECT throwIf(v < 0, 'negative') + v AS r FROM viewed");
    ClickHouseConfig config = config("viewed", Map.of());
    RowEncoder encoder = encoder(config);
    assertThatThrownBy(() -> insert(config, encoder, null, "{\"v\":1}", "{\"v\":-1}", "{\"v\":2}"))
        .isInstanceOfSatisfying(
            InsertException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(FailureKind.VIEW_FAILED);
              assertThat(e.writtenRows()).isEqualTo(3);
            });
    assertThat(database.query("SELECT groupArray(v) FROM (SELECT v FROM viewed ORDER BY v)"))
        .isEqualTo("[-1,1,2]");
    assertThat(database.count("view_target")).isZero();
  }
}
