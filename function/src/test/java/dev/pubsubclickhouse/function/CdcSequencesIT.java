package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.DebeziumEvents.*;
import static dev.pubsubclickhouse.function.IntegrationFixtures.createDeadLetterTable;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sequences that break naive CDC sinks, each delivered in its worst order through the real
 * service into the real ClickHouse, and the stored values read back (FINAL) against the source's.
 */
@ClickHouseTest
class CdcSequencesIT {
  private static final String META =
      "__op Enum8('c' = 1, 'u' = 2, 'd' = 3, 'r' = 4), __version UInt64, __is_deleted UInt8,"
          + " __source_ts_ms Int64, __source_table LowCardinality(String),"
          + " __transaction_id String";

  private final TestDatabase database;

  CdcSequencesIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeEach
  void tables() {
    for (String table :
        List.of(
            "items",
            "accounts",
            "orders",
            "cdc_dead",
            "hist_mv",
            "hist",
            "latest",
            "_cdc_truncate_marks")) {
      database.execute("DROP TABLE IF EXISTS " + table + " SYNC");
    }
    database.execute(
        "CREATE TABLE items (id Int32, name String, body String, tags Array(String),"
            + " price Decimal(10, 2) DEFAULT 0, __lsn UInt64, "
            + META
            + ") ENGINE = ReplacingMergeTree(__version, __is_deleted) ORDER BY id");
    database.execute(
        "CREATE TABLE accounts (id Int32, name String, "
            + META
            + ") ENGINE = ReplacingMergeTree(__version, __is_deleted) ORDER BY id");
    createDeadLetterTable(database, "cdc_dead");
    createHistoryAndLatestState(database);
  }

  private RunningService start() throws Exception {
    return RunningService.start(
        database,
        "items",
        Map.of(
            "PAYLOAD_FORMAT", "debezium",
            "CDC_TABLES", "public.items=items,shop.accounts=accounts,public.hist=hist",
            "CLICKHOUSE_DEAD_LETTER_TABLE", "cdc_dead",
            "BATCH_MAX_WAIT_MS", "50"));
  }

  private static ObjectNode item(String op, ObjectNode before, ObjectNode after, long lsn) {
    return payload(op, before, after, postgresSource("public", "items", lsn, lsn / 10, lsn));
  }

  private static ObjectNode item(int id, String name) {
    return row("id", id, "name", name, "body", "body of " + id, "tags", List.of("t" + id));
  }

  private static ObjectNode account(String op, int id, String name, int file, long pos, long ts) {
    ObjectNode row = row("id", id, "name", name);
    return payload(
        op,
        op.equals("d") ? row : null,
        op.equals("d") ? null : row,
        mysqlSource("shop", "accounts", file, pos, 0, ts, "g:" + pos));
  }

  private String items() {
    return rows("SELECT id, name, body, tags FROM items FINAL WHERE __is_deleted = 0 ORDER BY id");
  }

  @Test
  void truncateDeletesWhatCameBeforeItInAnyDeliveryOrder() throws Exception {
    try (RunningService service = start()) {
      assertThat(push(service, "t-12", item("c", null, item(12, "after"), 130))).isEqualTo(204);
      assertThat(push(service, "t-10", item("c", null, item(10, "before"), 100))).isEqualTo(204);
      assertThat(push(service, "t-trunc", item("t", null, null, 120))).isEqualTo(204);
      // Older than the truncate, delivered after it: it belongs to the rows the truncate removed.
      assertThat(push(service, "t-11", item("c", null, item(11, "before too"), 110)))
          .isEqualTo(204);
    }
    assertThat(items()).isEqualTo("12\tafter\tbody of 12\t['t12']\n");
    assertThat(rows("SELECT count() FROM items WHERE id IN (10, 11)")).isEqualTo("0\n");
  }

  @Test
  void aTruncateAlsoDeletesFromTheLatestStateAViewFillsFromTheHistory() throws Exception {
    try (RunningService service = start()) {
      for (int id = 1; id <= 3; id++) {
        ObjectNode create =
            payload(
                "c",
                null,
                row("id", id, "name", "n" + id),
                postgresSource("public", "hist", id, 1, 1));
        assertThat(push(service, "h" + id, create)).isEqualTo(204);
      }
      ObjectNode truncate = payload("t", null, null, postgresSource("public", "hist", 3, 2, 2));
      assertThat(push(service, "ht", truncate)).isEqualTo(204);
    }
    assertThat(rows("SELECT id, name FROM hist FINAL ORDER BY id")).isEqualTo("3\tn3\n");
    assertThat(rows("SELECT id, name FROM latest FINAL WHERE __is_deleted = 0 ORDER BY id"))
        .isEqualTo("3\tn3\n");
  }

  @Test
  void schemaEvolutionAddsAColumnForANewSourceColumn() throws Exception {
    try (RunningService service =
        RunningService.start(
            database,
            "accounts",
            Map.of(
                "PAYLOAD_FORMAT", "debezium",
                "CDC_TABLES", "shop.accounts=accounts",
                "SCHEMA_EVOLUTION", "add_columns",
                "BATCH_MAX_WAIT_MS", "50"))) {
      ObjectNode event = account("c", 40, "with color", 9, 4, 1);
      ((ObjectNode) event.get("after")).put("color", "red");
      assertThat(push(service, "evo", event)).isEqualTo(204);
    }
    assertThat(rows("SELECT id, name, color, __op FROM accounts FINAL"))
        .isEqualTo("40\twith color\tred\tc\n");
    assertThat(
            rows(
                "SELECT name, type FROM system.columns WHERE database = currentDatabase()"
                    + " AND table = 'accounts' AND name NOT IN ('id', 'name') AND name NOT LIKE '\\_\\_%'"))
        .as("the new column only, no metadata column")
        .isEqualTo("color\tNullable(String)\n");
  }

  @Test
  void orderOfDeliveryDoesNotDecideTheLatestRow() throws Exception {
    try (RunningService service = start()) {
      // An update delivered before its create.
      assertThat(push(service, "u1", item("u", null, item(1, "updated"), 2_000))).isEqualTo(204);
      assertThat(push(service, "c1", item("c", null, item(1, "created"), 1_000))).isEqualTo(204);
      // A redelivered old delete around a re-insert.
      assertThat(push(service, "c2", item("c", null, item(2, "first"), 3_000))).isEqualTo(204);
      assertThat(push(service, "d2", item("d", row("id", 2), null, 3_100))).isEqualTo(204);
      assertThat(push(service, "c2b", item("c", null, item(2, "again"), 3_200))).isEqualTo(204);
      assertThat(push(service, "d2", item("d", row("id", 2), null, 3_100))).isEqualTo(204);
      // A MySQL transaction whose statement time is older than an earlier commit, and a binlog
      // rollover: the binlog position decides, not the clock.
      assertThat(push(service, "a3", account("u", 1, "third", 4, 4, 500))).isEqualTo(204);
      assertThat(push(service, "a2", account("u", 1, "second", 3, 2_000, 1_000))).isEqualTo(204);
      assertThat(push(service, "a1", account("c", 1, "first", 3, 1_000, 2_000))).isEqualTo(204);
    }
    assertThat(items()).isEqualTo("1\tupdated\tbody of 1\t['t1']\n2\tagain\tbody of 2\t['t2']\n");
    assertThat(
            rows(
                "SELECT id, name, __op, __version, __source_ts_ms, __transaction_id,"
                    + " __source_table FROM accounts FINAL"))
        .isEqualTo("1\tthird\tu\t" + ((4L << 36) | 4) + "\t500\tg:4\tshop.accounts\n");
    assertThat(
            rows(
                "SELECT __op, __version, __lsn, __transaction_id, __source_ts_ms, __source_table"
                    + " FROM items FINAL WHERE id = 2"))
        .isEqualTo("c\t3200\t3200\t320\t3200\tpublic.items\n");
  }

  @Test
  void aReSnapshotRemovesTheGhostOfARowDeletedUnseen() throws Exception {
    try (RunningService service = start()) {
      assertThat(push(service, "a5", account("c", 5, "five", 5, 100, 1))).isEqualTo(204);
      assertThat(push(service, "a6", account("c", 6, "six", 5, 200, 2))).isEqualTo(204);
      // Row 6 is deleted at (5, 300), and that delete never arrives; a re-snapshot follows.
      ObjectNode first = account("r", 5, "five again", 6, 4, 3);
      ((ObjectNode) first.get("source")).put("snapshot", "first");
      ObjectNode last = account("r", 8, "eight", 6, 4, 3);
      ((ObjectNode) last.get("source")).put("snapshot", "last");
      assertThat(push(service, "s8", last)).isEqualTo(204);
      assertThat(push(service, "s5", first)).isEqualTo(204);
    }
    assertThat(rows("SELECT id, name FROM accounts FINAL WHERE __is_deleted = 0 ORDER BY id"))
        .isEqualTo("5\tfive again\n8\teight\n");
  }

  @Test
  void toastPlaceholdersAreFilledFromBeforeOrTheStoredRowOrDeadLettered() throws Exception {
    String placeholder = "__debezium_unavailable_value";
    ObjectNode without =
        row("id", 20, "name", "n3", "body", placeholder, "tags", List.of(placeholder));
    try (RunningService service = start()) {
      assertThat(push(service, "c20", item("c", null, item(20, "n1"), 5_000))).isEqualTo(204);
      ObjectNode toasted =
          row("id", 20, "name", "n2", "body", placeholder, "tags", List.of(placeholder));
      assertThat(push(service, "u20", item("u", item(20, "n1"), toasted, 5_100))).isEqualTo(204);
      // REPLICA IDENTITY DEFAULT: no before; the stored row of key 20 below 5200 has the values.
      assertThat(push(service, "u20b", item("u", null, without, 5_200))).isEqualTo(204);
      // Nothing of key 21 is stored: nothing can say what its body was.
      ObjectNode unknown = row("id", 21, "name", "n", "body", placeholder, "tags", List.of("z"));
      assertThat(push(service, "u21", item("u", null, unknown, 5_300))).isEqualTo(204);
    }
    // Delivered again to another instance after a merge left only its own row of key 20.
    database.execute("OPTIMIZE TABLE items FINAL");
    try (RunningService again = start()) {
      assertThat(push(again, "u20b", item("u", null, without, 5_200))).isEqualTo(204);
    }
    assertThat(items()).isEqualTo("20\tn3\tbody of 20\t['t20']\n");
    assertThat(rows("SELECT count() FROM items WHERE body LIKE '%unavailable%'")).isEqualTo("0\n");
    assertThat(rows("SELECT error_message FROM cdc_dead"))
        .isEqualTo(
            "column \\'body\\' of public.items holds Debezium\\'s TOAST placeholder"
                + " (__debezium_unavailable_value), the event has no before value for it, and no"
                + " row of its key at or below its version is stored in "
                + database.name()
                + ".items (its earlier change not written yet, or deleted): set REPLICA IDENTITY"
                + " FULL on the source table so that updates carry the unchanged value\n");
  }

  @Test
  void aToastPlaceholderTakesTheValueOfTheChangeBeforeItEvenDeliveredLate() throws Exception {
    String placeholder = "__debezium_unavailable_value";
    try (RunningService service = start()) {
      for (long[] change : new long[][] {{10, 0}, {20, 1}}) {
        ObjectNode event =
            payload(
                change[0] == 10 ? "c" : "u",
                null,
                row("id", 1, "name", change[1] == 0 ? "first body" : "second body"),
                postgresSource("public", "hist", change[0], 1, 1));
        assertThat(push(service, "h" + change[0], event)).isEqualTo(204);
      }
      // Changes at 30 and 15 that left the body alone; 15 arrives after 20 is stored.
      for (long version : new long[] {30, 15}) {
        ObjectNode event =
            payload(
                "u",
                null,
                row("id", 1, "name", placeholder),
                postgresSource("public", "hist", version, 1, 1));
        assertThat(push(service, "h" + version, event)).isEqualTo(204);
      }
    }
    assertThat(rows("SELECT __version, name FROM hist FINAL ORDER BY __version"))
        .isEqualTo("10\tfirst body\n15\tfirst body\n20\tsecond body\n30\tsecond body\n");
    assertThat(rows("SELECT __version, name FROM latest FINAL WHERE __is_deleted = 0"))
        .isEqualTo("30\tsecond body\n");
    assertThat(database.count("cdc_dead")).isZero();
  }

  @Test
  void aToastPlaceholderReadFromAReplicaBehindTheQuorumWaitsForRedelivery() throws Exception {
    String placeholder = "__debezium_unavailable_value";
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url())) {
      Map<String, String> env =
          RunningService.environment(
              database,
              "items",
              Map.of(
                  "PAYLOAD_FORMAT", "debezium",
                  "CDC_TABLES", "public.items=items",
                  "CLICKHOUSE_DEAD_LETTER_TABLE", "cdc_dead",
                  "BATCH_MAX_WAIT_MS", "50"));
      env.put("CLICKHOUSE_URL", proxy.url());
      try (RunningService service = RunningService.start(env)) {
        assertThat(push(service, "q10", item("c", null, item(5, "stored"), 10))).isEqualTo(204);
        ObjectNode toasted = item("u", null, item(5, "renamed"), 20);
        ((ObjectNode) toasted.get("after")).put("body", placeholder);
        // As a replica answers a read with select_sequential_consistency = 1 before it has
        // fetched a quorum INSERT: the row is there, on another replica.
        proxy.failQueries("SELECT `body`", 500, 289, "REPLICA_IS_NOT_IN_QUORUM");
        assertThat(push(service, "q20", toasted)).isBetween(500, 599);
        assertThat(database.count("cdc_dead")).isZero();
        proxy.heal();
        assertThat(push(service, "q20", toasted)).isEqualTo(204);
      }
      assertThat(proxy.faultedRequests()).isPositive();
    }
    assertThat(items()).isEqualTo("5\trenamed\tbody of 5\t['t5']\n");
    assertThat(database.count("cdc_dead")).isZero();
  }

  /** The service with east.orders and west.orders both mapped to the table orders. */
  private RunningService startOrders() throws Exception {
    return RunningService.start(
        database,
        "orders",
        Map.of(
            "PAYLOAD_FORMAT", "debezium",
            "CDC_TABLES", "east.orders=orders,west.orders=orders",
            "CLICKHOUSE_DEAD_LETTER_TABLE", "cdc_dead",
            "BATCH_MAX_WAIT_MS", "50"));
  }

  /** A change of row 1 of {@code schema}.orders at {@code lsn}, its note {@code note}. */
  private static ObjectNode order(String op, String schema, long lsn, String note) {
    return payload(
        op, null, row("id", 1, "note", note), postgresSource(schema, "orders", lsn, 1, 1));
  }

  @Test
  void aToastPlaceholderInASharedTargetTakesTheValueOfItsOwnSourceTablesRow() throws Exception {
    // Two databases' orders in one table, told apart by __source_table in the sorting key.
    database.execute("DROP TABLE IF EXISTS orders SYNC");
    database.execute(
        "CREATE TABLE orders (id Int32, note String, "
            + META
            + ") ENGINE = ReplacingMergeTree(__version, __is_deleted) ORDER BY (__source_table, id)");
    String placeholder = "__debezium_unavailable_value";
    try (RunningService service = startOrders()) {
      String[][] changes = {
        {"east", "c", "100", "east note"},
        {"west", "c", "200", "west note"},
        {"east", "u", "300", placeholder},
        {"west", "u", "400", placeholder}
      };
      for (String[] change : changes) {
        long lsn = Long.parseLong(change[2]);
        ObjectNode event = order(change[1], change[0], lsn, change[3]);
        assertThat(push(service, change[0] + change[2], event)).isEqualTo(204);
      }
    }
    assertThat(rows("SELECT __source_table, __version, note FROM orders FINAL ORDER BY 1"))
        .isEqualTo("east.orders\t300\teast note\nwest.orders\t400\twest note\n");
    assertThat(database.count("cdc_dead")).isZero();
    // The row a placeholder is filled from may have been stored through another replica.
    assertThat(
            database.settingOfQueries(
                "select_sequential_consistency", "%FROM%orders% FINAL WHERE%"))
        .isEqualTo("1");
  }

  @Test
  void aToastPlaceholderFindsTheRowsStoredBeforeTheSourceTableJoinedTheSortingKey()
      throws Exception {
    // A history table that east.orders alone wrote, before west.orders was to share it.
    database.execute("DROP TABLE IF EXISTS orders SYNC");
    database.execute(
        "CREATE TABLE orders (id Int32, note String, __op Enum8('c' = 1, 'u' = 2, 'd' = 3,"
            + " 'r' = 4), __version UInt64, __is_deleted UInt8) ENGINE = ReplacingMergeTree"
            + " ORDER BY (id, __version)");
    try (RunningService service = startOrders()) {
      assertThat(push(service, "east100", order("c", "east", 100, "east note"))).isEqualTo(204);
    }
    database.execute(
        "ALTER TABLE orders ADD COLUMN __source_table LowCardinality(String),"
            + " MODIFY ORDER BY (id, __version, __source_table)");
    try (RunningService service = startOrders()) {
      assertThat(push(service, "west200", order("c", "west", 200, "west note"))).isEqualTo(204);
      ObjectNode update = order("u", "east", 300, "__debezium_unavailable_value");
      assertThat(push(service, "east300", update)).isEqualTo(204);
    }
    assertThat(database.count("cdc_dead")).isZero();
    assertThat(rows("SELECT __source_table, __version, note FROM orders ORDER BY __version"))
        .isEqualTo("\t100\teast note\nwest.orders\t200\twest note\neast.orders\t300\teast note\n");
  }

  @Test
  void aKeylessTableKeepsEachChangeOnceThoughPubSubDeliversItTwice() throws Exception {
    // The layout of sql/cdc/keyless_append_only.sql, as shipped.
    database.execute("DROP TABLE IF EXISTS audit_log SYNC");
    String ddl =
        Files.readString(Path.of("../sql/cdc/keyless_append_only.sql"))
            .lines()
            .filter(line -> !line.startsWith("--"))
            .collect(Collectors.joining("\n"));
    for (String statement : ddl.split(";")) {
      if (!statement.isBlank()) {
        database.execute(statement);
      }
    }
    try (RunningService service =
        RunningService.start(
            database,
            "audit_log",
            Map.of(
                "PAYLOAD_FORMAT", "debezium",
                "CDC_TABLES", "public.audit_log=audit_log",
                "BATCH_MAX_WAIT_MS", "50"))) {
      // A snapshot reads every row at one position: two rows, one version.
      for (String actor : List.of("ann", "bob")) {
        ObjectNode read =
            payload(
                "r",
                null,
                row("at", "2026-01-01T00:00:00Z", "actor", actor, "action", "login"),
                postgresSource("public", "audit_log", 500, 1, 1));
        assertThat(push(service, "snap-" + actor, read)).isEqualTo(204);
      }
      ObjectNode insert =
          payload(
              "c",
              null,
              row("at", "2026-01-02T00:00:00Z", "actor", "cy", "action", "logout"),
              postgresSource("public", "audit_log", 600, 2, 2));
      // Pub/Sub delivers a message again when an answer is lost.
      assertThat(push(service, "ins-cy", insert)).isEqualTo(204);
      assertThat(push(service, "ins-cy", insert)).isEqualTo(204);
    }
    assertThat(rows("SELECT actor, action, __op, __version FROM audit_log FINAL ORDER BY actor"))
        .isEqualTo("ann\tlogin\tr\t500\nbob\tlogin\tr\t500\ncy\tlogout\tc\t600\n");
  }

  @Test
  void deletesNameTheirRowByKeyAndOtherColumnsTakeTheirDefault() throws Exception {
    try (RunningService service = start()) {
      assertThat(push(service, "c21", item("c", null, item(21, "x"), 6_000))).isEqualTo(204);
      assertThat(push(service, "c22", item("c", null, item(22, "y"), 6_010))).isEqualTo(204);
      assertThat(push(service, "c23", item("c", null, item(23, "z"), 6_020))).isEqualTo(204);
      // REPLICA IDENTITY DEFAULT: before holds the key, the other columns null.
      ObjectNode keyOnly = row("id", 21, "name", null, "body", null, "tags", null);
      assertThat(push(service, "d21", item("d", keyOnly, null, 6_100))).isEqualTo(204);
      // REPLICA IDENTITY NOTHING: no before; the record key comes as an attribute.
      assertThat(
              push(
                  service,
                  "d22",
                  item("d", null, null, 6_110).toString(),
                  Map.of("key", "{\"id\":22}")))
          .isEqualTo(204);
    }
    assertThat(items()).isEqualTo("23\tz\tbody of 23\t['t23']\n");
    assertThat(
            rows(
                "SELECT id, name, body, tags, __op, __is_deleted FROM items"
                    + " WHERE __is_deleted = 1 ORDER BY id"))
        .isEqualTo("21\t\t\t[]\td\t1\n22\t\t\t[]\td\t1\n");
  }

  @Test
  void messagesWithoutARowAreAcknowledgedAndRefusalsDeadLetteredWithTheReason() throws Exception {
    try (RunningService service = start()) {
      assertThat(push(service, "tomb", "", Map.of())).isEqualTo(204);
      assertThat(push(service, "null", "null", Map.of())).isEqualTo(204);
      assertThat(
              push(
                  service,
                  "beat",
                  "{\"schema\":{\"type\":\"struct\",\"name\":\"io.debezium.connector.common.Heartbeat\","
                      + "\"fields\":[]},\"payload\":{\"ts_ms\":1588252618953}}",
                  Map.of()))
          .isEqualTo(204);
      assertThat(
              push(
                  service,
                  "tx",
                  "{\"status\":\"END\",\"id\":\"571:53195832\",\"ts_ms\":1,\"event_count\":2,"
                      + "\"data_collections\":[]}",
                  Map.of()))
          .isEqualTo(204);
      ObjectNode other =
          payload("c", null, row("id", 1), postgresSource("public", "other", 10, 1, 1));
      assertThat(push(service, "other", other)).isEqualTo(204);
      ObjectNode message = item("c", null, null, 7_000);
      message.put("op", "m");
      message.putObject("message").put("prefix", "audit").put("content", "eA==");
      assertThat(push(service, "m", message)).isEqualTo(204);
      ObjectNode decimal = item("c", null, item(30, "p").put("price", "BNI="), 7_100);
      assertThat(push(service, "dec", decimal)).isEqualTo(204);
      assertThat(
              push(
                  service,
                  "avro",
                  item("c", null, item(31, "a"), 7_200).toString(),
                  Map.of("googclient_schemaname", "projects/p/schemas/s")))
          .isEqualTo(204);
    }
    assertThat(database.count("items")).isZero();
    assertThat(rows("SELECT error_message FROM cdc_dead ORDER BY error_message"))
        .isEqualTo(
            "column \\'price\\' (Decimal(10, 2)) rejects \"BNI=\": "
                + "not a number (a Debezium event without its schema holds a DECIMAL as base64 bytes,"
                + " which cannot be read: set decimal.handling.mode=string on the connector, or"
                + " enable the converter\\'s schemas)\n"
                + "op m (a logical decoding message, prefix \\'audit\\') has no row to write: it is"
                + " kept as a dead letter\n"
                + "source table public.other (postgresql) is not one of CDC_TABLES (public.hist, public.items,"
                + " shop.accounts)\n"
                + "the message has a Pub/Sub schema (projects/p/schemas/s), and PAYLOAD_FORMAT=debezium"
                + " reads Debezium\\'s JSON change events only\n");
  }

  /** The rows of a query as TabSeparated lines, each ending in a newline. */
  private String rows(String sql) {
    String rows = database.query(sql);
    return rows.isEmpty() ? rows : rows + "\n";
  }
}
