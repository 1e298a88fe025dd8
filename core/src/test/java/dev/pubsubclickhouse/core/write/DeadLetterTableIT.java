package dev.pubsubclickhouse.core.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.TestInserters;
import dev.pubsubclickhouse.core.insert.WaitedFor;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

@ClickHouseTest
class DeadLetterTableIT {
  private final TestDatabase database;
  private final ClickHouseInserter inserter;

  DeadLetterTableIT(TestDatabase database) {
    this.database = database;
    this.inserter = TestInserters.of(database);
  }

  private TableName table(String name) {
    return new TableName(database.name(), name);
  }

  private static DeadLetter deadLetter(String data, String reason, String failedAt) {
    Map<String, String> origin = new LinkedHashMap<>();
    origin.put("messageId", "m1");
    origin.put("subscription", "projects/p/subscriptions/s");
    return DeadLetter.builder()
        .identity("s\nm1")
        .data(data.getBytes(StandardCharsets.UTF_8))
        .payload(data.getBytes(StandardCharsets.UTF_8))
        .attributes(Map.of("k", "v"))
        .origin(origin)
        .reason(reason)
        .failedAt(Instant.parse(failedAt))
        .build();
  }

  /** The dead letter of an empty object, from {@code origin} (written in key order). */
  private static DeadLetter emptyFrom(Map<String, String> origin, String reason, String failedAt) {
    byte[] data = "{}".getBytes(StandardCharsets.UTF_8);
    return DeadLetter.builder()
        .data(data)
        .origin(new TreeMap<>(origin))
        .reason(reason)
        .failedAt(Instant.parse(failedAt))
        .build();
  }

  @Test
  void deadLettersAreWrittenInOneInsert() throws Exception {
    database.execute(
        "CREATE TABLE errors (raw_message String, error_message String, stack_trace String,"
            + " failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");
    DeadLetterTable errors =
        DeadLetterTable.open(database.client(), table("errors"), false, inserter);
    byte[] notUtf8 = {(byte) 0xff, 'x'};
    errors.write(
        List.of(
            deadLetter("{\"a\":1}", "column 'a' rejects 1", "2026-01-15T12:00:00Z"),
            DeadLetter.builder()
                .data(notUtf8)
                .origin(Map.of("sourceRow", "7"))
                .reason("not JSON")
                .failedAt(Instant.parse("2026-01-15T12:00:01Z"))
                .build()),
        WaitedFor.ALWAYS);
    assertThat(
            database.query(
                "SELECT raw_message, error_message, stack_trace, toUnixTimestamp(failed_at) FROM errors ORDER BY failed_at"))
        .isEqualTo(
            "{\"a\":1}\tcolumn \\'a\\' rejects 1\tmessageId=m1 subscription=projects/p/subscriptions/s\t1768478400\n"
                + "/3g=\tnot JSON\tsourceRow=7 rawMessageEncoding=base64\t1768478401");
  }

  @Test
  void aMissingTableStopsStartWithAClearLine() {
    assertThatThrownBy(
            () -> DeadLetterTable.open(database.client(), table("absent"), false, inserter))
        .hasMessage(
            "dead-letter table "
                + database.name()
                + ".absent does not exist (create it, or set CREATE_DEAD_LETTER_TABLE=true)");
  }

  @Test
  void aMissingTableIsCreatedWhenAsked() {
    DeadLetterTable.open(database.client(), table("created"), true, inserter);
    assertThat(
            database.query(
                "SELECT name, type FROM system.columns WHERE database = '"
                    + database.name()
                    + "' AND table = 'created' ORDER BY position"))
        .isEqualTo(
            "raw_message\tString\nerror_message\tString\nstack_trace\tString\nfailed_at\tDateTime\n"
                + "message_id\tString\npublish_time\tNullable(DateTime64(3, \\'UTC\\'))\n"
                + "attributes\tMap(String, String)\nordering_key\tString\nsubscription\tString\n"
                + "delivery_attempt\tNullable(UInt32)");
  }

  @Test
  void theFullTableKeepsTheMessageAsPubSubDeliveredIt() throws Exception {
    database.execute(DeadLetterTable.createStatement(table("full")));
    DeadLetterTable errors =
        DeadLetterTable.open(database.client(), table("full"), false, inserter);
    Map<String, String> origin = new LinkedHashMap<>();
    origin.put(DeadLetter.MESSAGE_ID, "4711");
    origin.put(DeadLetter.PUBLISH_TIME, "2026-01-15T12:34:56.789Z");
    origin.put(DeadLetter.SUBSCRIPTION, "projects/p/subscriptions/s");
    origin.put(DeadLetter.ORDERING_KEY, "device 7");
    origin.put(DeadLetter.DELIVERY_ATTEMPT, "3");
    byte[] data = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    errors.write(
        List.of(
            DeadLetter.builder()
                .identity("projects/p/subscriptions/s\n4711")
                .data(data)
                .attributes(new TreeMap<>(Map.of("source", "web", "trace", "t-1")))
                .origin(origin)
                .reason("column 'a' rejects 1")
                .failedAt(Instant.parse("2026-01-15T12:35:00Z"))
                .build()),
        WaitedFor.ALWAYS);
    assertThat(
            database.query(
                "SELECT raw_message, error_message, stack_trace, toUnixTimestamp(failed_at),"
                    + " message_id, toString(publish_time), toJSONString(attributes), ordering_key,"
                    + " subscription, delivery_attempt FROM full"))
        .isEqualTo(
            "{\"a\":1}\tcolumn \\'a\\' rejects 1\tmessageId=4711"
                + " publishTime=2026-01-15T12:34:56.789Z subscription=projects/p/subscriptions/s"
                + " orderingKey=device 7 deliveryAttempt=3\t1768480500\t4711\t2026-01-15 12:34:56.789\t"
                + "{\"source\":\"web\",\"trace\":\"t-1\"}\tdevice 7\tprojects/p/subscriptions/s\t3");
  }

  @Test
  void whatADeadLetterLacksIsLeftEmptyOrNullAndAPublishTimeThatIsNotOneIsNotFatal()
      throws Exception {
    database.execute(DeadLetterTable.createStatement(table("sparse")));
    DeadLetterTable errors =
        DeadLetterTable.open(database.client(), table("sparse"), false, inserter);
    errors.write(
        List.of(
            emptyFrom(
                Map.of(DeadLetter.PUBLISH_TIME, "yesterday", DeadLetter.DELIVERY_ATTEMPT, "-1"),
                "why",
                "2026-01-15T12:35:00Z"),
            emptyFrom(Map.of("sourceRow", "7"), "why", "2026-01-15T12:35:01Z")),
        WaitedFor.ALWAYS);
    assertThat(
            database.query(
                "SELECT stack_trace, message_id, publish_time, toJSONString(attributes),"
                    + " ordering_key, subscription, delivery_attempt FROM sparse ORDER BY failed_at"))
        .isEqualTo(
            "deliveryAttempt=-1 publishTime=yesterday\t\t\\N\t{}\t\t\t\\N\n"
                + "sourceRow=7\t\t\\N\t{}\t\t\t\\N");
  }

  @Test
  void aPublishTimeOrDeliveryAttemptOutsideItsColumnIsLeftOutAndTheOtherDeadLettersAreWritten()
      throws Exception {
    database.execute(
        "CREATE TABLE narrow (raw_message String, error_message String, stack_trace String,"
            + " failed_at DateTime, publish_time Nullable(DateTime), delivery_attempt Nullable(Int32))"
            + " ENGINE = MergeTree ORDER BY failed_at");
    DeadLetterTable errors =
        DeadLetterTable.open(database.client(), table("narrow"), false, inserter);
    errors.write(
        List.of(
            emptyFrom(
                Map.of(
                    DeadLetter.PUBLISH_TIME,
                    "9999-12-31T00:00:00Z",
                    DeadLetter.DELIVERY_ATTEMPT,
                    "4294967295"),
                "far future",
                "2026-01-15T12:35:00Z"),
            emptyFrom(
                Map.of(
                    DeadLetter.PUBLISH_TIME,
                    "2026-01-15T12:34:56Z",
                    DeadLetter.DELIVERY_ATTEMPT,
                    "2"),
                "ordinary",
                "2026-01-15T12:35:01Z")),
        WaitedFor.ALWAYS);
    assertThat(
            database.query(
                "SELECT error_message, stack_trace, toUnixTimestamp(publish_time), delivery_attempt"
                    + " FROM narrow ORDER BY failed_at"))
        .isEqualTo(
            "far future\tdeliveryAttempt=4294967295 publishTime=9999-12-31T00:00:00Z\t\\N\t\\N\n"
                + "ordinary\tdeliveryAttempt=2 publishTime=2026-01-15T12:34:56Z\t1768480496\t2");
  }

  @Test
  void optionalColumnsOfAnotherTypeStopStart() {
    database.execute(
        "CREATE TABLE wrong_attributes (raw_message String, error_message String,"
            + " stack_trace String, failed_at DateTime, attributes Map(String, UInt8))"
            + " ENGINE = Memory");
    assertThatThrownBy(
            () ->
                DeadLetterTable.open(database.client(), table("wrong_attributes"), false, inserter))
        .hasMessage(
            "dead-letter table "
                + database.name()
                + ".wrong_attributes: column attributes must be Map(String, String), not Map(String, UInt8)");
  }

  @Test
  void aPublishTimeThatCannotBeLeftEmptyStopsStart() {
    database.execute(
        "CREATE TABLE required_time (raw_message String, error_message String,"
            + " stack_trace String, failed_at DateTime, publish_time DateTime64(3))"
            + " ENGINE = Memory");
    assertThatThrownBy(
            () -> DeadLetterTable.open(database.client(), table("required_time"), false, inserter))
        .hasMessage(
            "dead-letter table "
                + database.name()
                + ".required_time: column publish_time must be Nullable or have a DEFAULT, since"
                + " not every dead letter has one");
  }

  @Test
  void aWrongColumnTypeStopsStart() {
    database.execute(
        "CREATE TABLE wrong_type (raw_message String, error_message String, stack_trace String, failed_at UInt32)"
            + " ENGINE = Memory");
    assertThatThrownBy(
            () -> DeadLetterTable.open(database.client(), table("wrong_type"), false, inserter))
        .hasMessage(
            "dead-letter table "
                + database.name()
                + ".wrong_type: column failed_at must be DateTime, not UInt32");
  }

  @Test
  void aMissingColumnStopsStart() {
    database.execute(
        "CREATE TABLE missing_column (raw_message String, error_message String, failed_at DateTime) ENGINE = Memory");
    assertThatThrownBy(
            () -> DeadLetterTable.open(database.client(), table("missing_column"), false, inserter))
        .hasMessage(
            "dead-letter table " + database.name() + ".missing_column has no column stack_trace");
  }

  @Test
  void anExtraColumnWithoutDefaultStopsStart() {
    database.execute(
        "CREATE TABLE extra_column (raw_message String, error_message String, stack_trace String,"
            + " failed_at DateTime64(3), source String) ENGINE = Memory");
    assertThatThrownBy(
            () -> DeadLetterTable.open(database.client(), table("extra_column"), false, inserter))
        .hasMessage(
            "dead-letter table "
                + database.name()
                + ".extra_column: column source has no DEFAULT and is not Nullable, so dead letters cannot fill it");
  }
}
