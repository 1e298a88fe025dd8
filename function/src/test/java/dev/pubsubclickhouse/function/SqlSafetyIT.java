package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Names from configuration are validated and quoted; values never go into SQL text. Checked against
 * the real ClickHouse, whose query log shows every statement the service sent.
 */
@ClickHouseTest
class SqlSafetyIT {
  /** What a message tries to smuggle into SQL. */
  private static final List<String> HOSTILE_VALUES =
      List.of(
          "'); DROP TABLE victim; --",
          "`; DROP TABLE victim; --",
          "\\'); SELECT 1; --",
          "{database:String}",
          "$1 OR 1=1",
          "\u0000\r\n\t",
          "\"quoted\"");

  private final TestDatabase database;

  SqlSafetyIT(TestDatabase database) {
    this.database = database;
  }

  private Map<String, String> env(String variable, String value) {
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", database.server().url());
    env.put("CLICKHOUSE_DATABASE", database.name());
    env.put("CLICKHOUSE_TABLE", "t");
    env.put(variable, value);
    return env;
  }

  @ParameterizedTest(name = "table {0}")
  @ValueSource(
      strings = {
        "logs; DROP TABLE victim",
        "logs`",
        "lo gs",
        "db.t.x",
        "../etc",
        "logs\nDROP",
        "logs'",
        "logs)"
      })
  void aHostileTableNameIsRefusedAtStartNamingTheVariable(String name) {
    for (String variable : List.of("CLICKHOUSE_TABLE", "CLICKHOUSE_DEAD_LETTER_TABLE")) {
      assertThatThrownBy(() -> PushConfig.read(env(variable, name)))
          .isInstanceOf(ConfigurationException.class)
          .hasMessageContaining(variable + "")
          .hasMessageContaining(" is invalid: ")
          .hasMessageContaining("use 1 to 255 letters, digits, '_', '$' or '-'");
    }
  }

  @Test
  void aHostileDatabaseNameIsRefusedAtStartNamingTheVariable() {
    assertThatThrownBy(() -> PushConfig.read(env("CLICKHOUSE_DATABASE", "db`; DROP DATABASE x")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("CLICKHOUSE_TABLE: database name")
        .hasMessageContaining("use 1 to 255 letters, digits, '_', '$' or '-'");
  }

  @Test
  void namesThatNeedQuotingWorkAndValuesReachTheTableAsData() throws Exception {
    database.execute("CREATE TABLE victim (x UInt8) ENGINE = MergeTree ORDER BY x");
    database.execute(
        "CREATE TABLE `odd-name$1` (`we``ird` String, `sp ace` String, `select` String,"
            + " _pubsub_message_id String) ENGINE = MergeTree ORDER BY _pubsub_message_id");
    database.execute(
        "CREATE TABLE `odd-errors$` (raw_message String, error_message String,"
            + " stack_trace String, failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");
    try (RunningService service =
        RunningService.start(
            database, "odd-name$1", Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", "odd-errors$"))) {
      for (int i = 0; i < HOSTILE_VALUES.size(); i++) {
        String value = HOSTILE_VALUES.get(i);
        String json =
            "{\"we`ird\":"
                + quote(value)
                + ",\"sp ace\":"
                + quote(value)
                + ",\"select\":"
                + quote(value)
                + "}";
        assertThat(service.push("v-" + i, json)).as(value).isEqualTo(204);
      }
      // And one that goes to the dead-letter table, hostile value and all.
      assertThat(
              service.push(
                  "v-bad", "{\"we`ird\":{\"x\":1}, \"sp ace\":" + quote(HOSTILE_VALUES.get(0))))
          .isEqualTo(204);
    }
    assertThat(database.count("victim")).isZero();
    for (int i = 0; i < HOSTILE_VALUES.size(); i++) {
      String stored =
          database.query(
              "SELECT hex(`we``ird`), hex(`sp ace`), hex(`select`) FROM `odd-name$1`"
                  + " WHERE _pubsub_message_id = 'v-"
                  + i
                  + "'");
      String hex = hex(HOSTILE_VALUES.get(i));
      assertThat(stored).as(HOSTILE_VALUES.get(i)).isEqualTo(hex + "\t" + hex + "\t" + hex);
    }
    assertThat(database.count("`odd-errors$`")).isEqualTo(1);
    database.flushLogs();
    String statements =
        database.query(
            "SELECT DISTINCT replaceRegexpAll(query, '\\\\s+', ' ') FROM system.query_log"
                + " WHERE current_database = '"
                + database.name()
                + "' AND type = 'QueryFinish'"
                + " AND query_kind = 'Insert' ORDER BY 1");
    // As the query log shows them (TabSeparated escapes the backslash), spacing normalised.
    assertThat(statements.lines().map(line -> line.replace(" )", ")").strip()).toList())
        .containsExactly(
            "INSERT INTO `"
                + database.name()
                + "`.`odd-errors$` (`raw_message`, `error_message`,"
                + " `stack_trace`, `failed_at`) FORMAT RowBinaryWithNamesAndTypesAndDefaults",
            "INSERT INTO `"
                + database.name()
                + "`.`odd-name$1` (`we\\\\`ird`, `sp ace`, `select`,"
                + " `_pubsub_message_id`) FORMAT RowBinaryWithNamesAndTypesAndDefaults");
    String everything =
        database.query(
            "SELECT query FROM system.query_log WHERE current_database = '"
                + database.name()
                + "'");
    assertThat(everything).doesNotContain("DROP TABLE victim").doesNotContain("OR 1=1");
  }

  private static String quote(String value) {
    return com.fasterxml.jackson.databind.node.TextNode.valueOf(value).toString();
  }

  private static String hex(String value) {
    StringBuilder hex = new StringBuilder();
    for (byte b : value.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      hex.append(String.format("%02X", b));
    }
    return hex.toString();
  }
}
