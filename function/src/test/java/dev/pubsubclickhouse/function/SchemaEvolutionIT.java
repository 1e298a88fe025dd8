package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.IntegrationFixtures.concurrently;
import static dev.pubsubclickhouse.function.IntegrationFixtures.createDeadLetterTable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.function.ingest.PushOutcome;
import dev.pubsubclickhouse.messages.MemoryCharge;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Schema evolution and the unknown-fields column against the real ClickHouse: a new field gets its
 * column before the message that brought it is written, so no value of it is lost from the first
 * message on; many instances seeing it at once make one column; off, nothing changes.
 */
@ClickHouseTest
class SchemaEvolutionIT {
  private static final Map<String, String> EVOLVING =
      Map.of("SCHEMA_EVOLUTION", "add_columns", "BATCH_LINGER_MS", "20");

  private final TestDatabase database;

  SchemaEvolutionIT(TestDatabase database) {
    this.database = database;
  }

  private String columns(String table) {
    return database.query(
        "SELECT groupArray(name || ' ' || type) FROM (SELECT name, type FROM system.columns"
            + " WHERE database = currentDatabase() AND table = '"
            + table
            + "' ORDER BY position)");
  }

  @Test
  void aNewFieldMidStreamGetsItsColumnAndEveryValueFromTheFirstMessageOn() throws Exception {
    database.execute(
        "CREATE TABLE mid (id UInt32, _pubsub_message_id String) ENGINE = MergeTree ORDER BY id");
    try (RunningService service = RunningService.start(database, "mid", EVOLVING)) {
      for (int i = 0; i < 3; i++) {
        assertThat(service.push("m-" + i, "{\"id\":" + i + "}")).isEqualTo(204);
      }
      List<Callable<Integer>> requests = new ArrayList<>();
      for (int i = 3; i < 23; i++) {
        int id = i;
        String data =
            "{\"id\":" + id + ",\"score\":" + (id * 10) + ",\"tag\":\"t" + id + "\",\"x\":null}";
        requests.add(() -> service.push("m-" + id, data));
      }
      assertThat(concurrently(requests)).containsOnly(204);
      assertThat(service.service.metrics().columnsAdded.value()).isEqualTo(2);
    }
    assertThat(columns("mid"))
        .isEqualTo(
            "['id UInt32','_pubsub_message_id String','score Nullable(Int64)',"
                + "'tag Nullable(String)']");
    String expected =
        IntStream.range(0, 23)
            .mapToObj(i -> i < 3 ? i + "\t\\N\t\\N" : i + "\t" + (i * 10) + "\tt" + i)
            .collect(Collectors.joining("\n"));
    assertThat(database.query("SELECT id, score, tag FROM mid ORDER BY id")).isEqualTo(expected);
  }

  @Test
  void eightInstancesSeeingTheSameNewFieldAtOnceMakeOneColumnWithoutAnError() throws Exception {
    database.execute(
        "CREATE TABLE fleet (id UInt32, _pubsub_message_id String) ENGINE = MergeTree ORDER BY id");
    createDeadLetterTable(database, "fleet_dead");
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", database.server().url());
    env.put("CLICKHOUSE_USER", database.server().user());
    env.put("CLICKHOUSE_PASSWORD", database.server().password());
    env.put("CLICKHOUSE_DATABASE", database.name());
    env.put("CLICKHOUSE_TABLE", "fleet");
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "fleet_dead");
    env.put("SUMMARY_INTERVAL_SECONDS", "3600");
    env.putAll(EVOLVING);
    List<PushService> fleet = new ArrayList<>();
    try {
      for (int i = 0; i < 8; i++) {
        fleet.add(PushService.start(PushConfig.read(env))); // each with its own client
      }
      for (PushService instance : fleet) {
        assertThat(instance.awaitReady(java.time.Duration.ofSeconds(60))).isTrue();
      }
      List<Callable<Integer>> requests = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        int id = i;
        PushService instance = fleet.get(i % 8);
        String data = "{\"id\":" + id + ",\"region\":\"r" + id + "\"}";
        requests.add(
            () ->
                instance
                    .push(
                        PubSubMessage.builder()
                            .data(data.getBytes(StandardCharsets.UTF_8))
                            .messageId("f-" + id)
                            .publishTime("2026-01-15T12:34:56Z")
                            .subscription("projects/test/subscriptions/push")
                            .deliveryAttempt(1)
                            .build(),
                        MemoryCharge.NONE)
                    .outcome()
                    .status());
      }
      assertThat(concurrently(requests)).containsOnly(PushOutcome.STORED.status());
      assertThat(fleet.stream().mapToLong(s -> s.metrics().columnTypeConflicts.value()).sum())
          .isZero();
      assertThat(fleet.stream().mapToLong(s -> s.metrics().fieldsNotAdded.value()).sum()).isZero();
    } finally {
      fleet.forEach(service -> service.shutdown(5));
    }
    assertThat(columns("fleet"))
        .isEqualTo("['id UInt32','_pubsub_message_id String','region Nullable(String)']");
    assertThat(database.query("SELECT count(), countIf(region = 'r' || toString(id)) FROM fleet"))
        .as("every value in its row")
        .isEqualTo("64\t64");
    assertThat(database.count("fleet_dead")).isZero();
  }

  @Test
  void anInstanceThatInferredAnotherTypeEncodesForTheColumnAsItIsOrDeadLettersTheValue()
      throws Exception {
    database.execute(
        "CREATE TABLE raced (id UInt32, _pubsub_message_id String) ENGINE = MergeTree ORDER BY id");
    createDeadLetterTable(database, "raced_dead");
    Map<String, String> settings = new HashMap<>(EVOLVING);
    settings.put("CLICKHOUSE_DEAD_LETTER_TABLE", "raced_dead");
    try (RunningService late = RunningService.start(database, "raced", settings);
        RunningService first = RunningService.start(database, "raced", settings)) {
      // Both read the table before the field existed; the first one adds it as Int64.
      assertThat(first.push("r-1", "{\"id\":1,\"n\":5}")).isEqualTo(204);
      assertThat(late.push("r-2", "{\"id\":2,\"n\":\"7\"}")).isEqualTo(204);
      assertThat(late.push("r-3", "{\"id\":3,\"n\":\"seven\"}")).isEqualTo(204);
      assertThat(late.service.metrics().columnTypeConflicts.value()).isEqualTo(1);
    }
    assertThat(columns("raced"))
        .isEqualTo("['id UInt32','_pubsub_message_id String','n Nullable(Int64)']");
    assertThat(database.query("SELECT id, n FROM raced ORDER BY id")).isEqualTo("1\t5\n2\t7");
    assertThat(database.query("SELECT raw_message, error_message FROM raced_dead"))
        .isEqualTo(
            "{\"id\":3,\"n\":\"seven\"}\tcolumn \\'n\\' (Nullable(Int64)) rejects \"seven\": not a"
                + " number");
  }

  @Test
  void withEvolutionOffANewFieldIsIgnoredAsBefore() throws Exception {
    database.execute(
        "CREATE TABLE fixed (id UInt32, _pubsub_message_id String) ENGINE = MergeTree ORDER BY id");
    try (RunningService service = RunningService.start(database, "fixed", Map.of())) {
      assertThat(service.push("o-1", "{\"id\":1,\"extra\":5}")).isEqualTo(204);
      assertThat(service.service.metrics().columnsAdded.value()).isZero();
    }
    assertThat(columns("fixed")).isEqualTo("['id UInt32','_pubsub_message_id String']");
    assertThat(database.query("SELECT id, _pubsub_message_id FROM fixed")).isEqualTo("1\to-1");
  }

  @Test
  void badNamesAndFieldsBeyondTheLimitGetNoColumnAndGoToTheUnknownFieldsColumn() throws Exception {
    database.execute(
        "CREATE TABLE bounded (id UInt32, rest Map(String, String)) ENGINE = MergeTree ORDER BY id");
    Map<String, String> settings = new HashMap<>(EVOLVING);
    settings.put("SCHEMA_EVOLUTION_MAX_NEW_COLUMNS", "1");
    settings.put("UNKNOWN_FIELDS_COLUMN", "rest");
    try (RunningService service = RunningService.start(database, "bounded", settings)) {
      assertThat(service.push("b-1", "{\"id\":1,\"a\":1,\"b\":2,\"bad-name\":{\"k\":3}}"))
          .isEqualTo(204);
      assertThat(service.service.metrics().fieldsNotAdded.value()).isEqualTo(2);
    }
    assertThat(columns("bounded"))
        .isEqualTo("['id UInt32','rest Map(String, String)','a Nullable(Int64)']");
    assertThat(database.query("SELECT id, a, rest FROM bounded"))
        .isEqualTo("1\t1\t{'b':'2','bad-name':'{\"k\":3}'}");
  }

  @Test
  void aFieldNamedAsTheUnknownFieldsColumnGetsNoColumnSoLaterMessagesAreWritten() throws Exception {
    database.execute("CREATE TABLE unkept (id UInt32) ENGINE = MergeTree ORDER BY id");
    createDeadLetterTable(database, "unkept_dead");
    Map<String, String> settings = new HashMap<>(EVOLVING);
    settings.put("UNKNOWN_FIELDS_COLUMN", "extra");
    settings.put("CLICKHOUSE_DEAD_LETTER_TABLE", "unkept_dead");
    try (RunningService service = RunningService.start(database, "unkept", settings)) {
      assertThat(service.push("u-1", "{\"id\":1,\"extra\":5}")).isEqualTo(204);
      assertThat(service.push("u-2", "{\"id\":2}")).isEqualTo(204);
      assertThat(service.push("u-3", "{\"id\":3,\"name\":\"x\"}")).isEqualTo(204);
    }
    assertThat(columns("unkept")).isEqualTo("['id UInt32','name Nullable(String)']");
    assertThat(database.query("SELECT id, name FROM unkept ORDER BY id"))
        .isEqualTo("1\t\\N\n2\t\\N\n3\tx");
    assertThat(database.count("unkept_dead")).isZero();
  }

  @Test
  void aFieldNamedAsAMetadataColumnGetsNoColumnAndKeepsItsValueInTheUnknownFieldsColumn()
      throws Exception {
    database.execute(
        "CREATE TABLE stamped (id UInt32, rest Map(String, String)) ENGINE = MergeTree ORDER BY id");
    Map<String, String> settings = new HashMap<>(EVOLVING);
    settings.put("UNKNOWN_FIELDS_COLUMN", "rest");
    try (RunningService service = RunningService.start(database, "stamped", settings)) {
      assertThat(service.push("s-1", "{\"id\":1,\"_ingested_at\":\"hello\"}")).isEqualTo(204);
    }
    assertThat(columns("stamped")).isEqualTo("['id UInt32','rest Map(String, String)']");
    assertThat(database.query("SELECT id, rest FROM stamped"))
        .isEqualTo("1\t{'_ingested_at':'hello'}");
  }

  @Test
  void aTypeClickHouseRefusesDeclinesTheFieldAnyOtherFailedAlterLeavesTheMessageFor503()
      throws Exception {
    database.execute(
        "CREATE TABLE refusing (id UInt32, rest Map(String, String)) ENGINE = MergeTree ORDER BY"
            + " id");
    Map<String, String> settings = new HashMap<>(EVOLVING);
    settings.put("SCHEMA_EVOLUTION_FALLBACK_TYPE", "Nullable(Array(String))"); // 43 for ADD COLUMN
    settings.put("UNKNOWN_FIELDS_COLUMN", "rest");
    try (RunningService service = RunningService.start(database, "refusing", settings)) {
      assertThat(service.push("r-1", "{\"id\":1,\"tags\":[\"x\"]}")).isEqualTo(204);
    }
    assertThat(database.query("SELECT id, rest FROM refusing")).isEqualTo("1\t{'tags':'[\"x\"]'}");

    // TinyLog takes INSERTs but no ALTER ADD COLUMN (48 NOT_IMPLEMENTED): nothing against the
    // column, so the message is not written without the field's value.
    database.execute("CREATE TABLE no_alter (id UInt32) ENGINE = TinyLog");
    try (RunningService service = RunningService.start(database, "no_alter", EVOLVING)) {
      assertThat(service.push("n-1", "{\"id\":1,\"n\":5}")).isEqualTo(503);
      assertThat(service.service.metrics().fieldsNotAdded.value()).isZero();
    }
    assertThat(database.query("SELECT count() FROM no_alter")).isEqualTo("0");
  }

  @Test
  void theUnknownFieldsColumnHoldsEveryFieldNoOtherColumnTakes() throws Exception {
    database.execute(
        "CREATE TABLE kept_json (id UInt32, extra JSON, _pubsub_message_id String)"
            + " ENGINE = MergeTree ORDER BY id");
    database.execute(
        "CREATE TABLE kept_map (id UInt32, extra Map(String, String)) ENGINE = MergeTree ORDER BY"
            + " id");
    createDeadLetterTable(database, "kept_dead");
    String data = "{\"id\":1,\"name\":\"a\",\"n\":2.5,\"tags\":[\"x\",\"y\"],\"extra\":true}";
    String known = "{\"id\":2}";
    Map<String, String> settings =
        Map.of("UNKNOWN_FIELDS_COLUMN", "extra", "CLICKHOUSE_DEAD_LETTER_TABLE", "kept_dead");
    try (RunningService service = RunningService.start(database, "kept_json", settings)) {
      assertThat(service.push("k-1", data)).isEqualTo(204);
      assertThat(service.push("k-2", known)).isEqualTo(204);
    }
    try (RunningService service = RunningService.start(database, "kept_map", settings)) {
      assertThat(service.push("k-1", data)).isEqualTo(204);
      assertThat(service.push("k-2", known)).isEqualTo(204);
    }
    assertThat(database.query("SELECT error_message FROM kept_dead")).isEmpty();
    assertThat(database.query("SELECT id, toJSONString(extra) FROM kept_json ORDER BY id"))
        .isEqualTo("1\t{\"extra\":true,\"n\":2.5,\"name\":\"a\",\"tags\":[\"x\",\"y\"]}\n2\t{}");
    assertThat(database.query("SELECT id, extra FROM kept_map ORDER BY id"))
        .as("a field named as the column is one of the unknown fields")
        .isEqualTo("1\t{'name':'a','n':'2.5','tags':'[\"x\",\"y\"]','extra':'true'}\n2\t{}");
  }

  @Test
  void anUnknownFieldsColumnThatCannotHoldAnObjectKeepsTheServiceUnreadyNamingIt()
      throws Exception {
    database.execute("CREATE TABLE wrong (id UInt32, extra Int64) ENGINE = MergeTree ORDER BY id");
    try (RunningService service =
        RunningService.startUnready(
            RunningService.environment(
                database, "wrong", Map.of("UNKNOWN_FIELDS_COLUMN", "extra")))) {
      String reason = "";
      for (int i = 0; i < 200 && !reason.contains("UNKNOWN_FIELDS_COLUMN"); i++) {
        Thread.sleep(50);
        reason = service.service.unhealthyReason().orElse("");
      }
      assertThat(reason)
          .contains(
              "column 'extra' of "
                  + database.name()
                  + ".wrong has type Int64, which cannot hold unknown fields"
                  + " (UNKNOWN_FIELDS_COLUMN)");
      assertThat(service.push("w-1", "{\"id\":1}")).isEqualTo(503);
    }
  }
}
