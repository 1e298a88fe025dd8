package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.IntegrationFixtures.concurrently;
import static dev.pubsubclickhouse.function.IntegrationFixtures.createDeadLetterTable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * The write path's promises at the push edge, against the real ClickHouse: a 2xx means the rows are
 * in the table as published, and one message ClickHouse refuses never costs the others. Each case
 * is a defect the service had before the write path was rebuilt (its commit says how it failed).
 */
@ClickHouseTest
class WritePathIT {
  private final TestDatabase database;

  WritePathIT(TestDatabase database) {
    this.database = database;
  }

  @Test
  void aColumnRetypedToTheSameWidthWhileRunningIsWrittenWithItsNewType() throws Exception {
    database.execute(
        "CREATE TABLE retyped (id UInt32, v Int64, _pubsub_message_id String)"
            + " ENGINE = MergeTree ORDER BY id");
    try (RunningService service = RunningService.start(database, "retyped", Map.of())) {
      assertThat(service.push("r-1", "{\"id\":1,\"v\":3}")).isEqualTo(204);
      database.execute("ALTER TABLE retyped MODIFY COLUMN v Float64");
      assertThat(service.push("r-2", "{\"id\":2,\"v\":5}")).isEqualTo(204);
      assertThat(service.push("r-3", "{\"id\":3,\"v\":0.25}")).isEqualTo(204);
    }
    assertThat(database.query("SELECT id, v, toTypeName(v) FROM retyped ORDER BY id"))
        .isEqualTo("1\t3\tFloat64\n2\t5\tFloat64\n3\t0.25\tFloat64");
  }

  @Test
  void aViewThatFailsOnOneMessageCostsNoMessageAndWritesNothingTwice() throws Exception {
    database.execute(
        "CREATE TABLE viewed (n Int32, _pubsub_message_id String) ENGINE = MergeTree ORDER BY n");
    database.execute("CREATE TABLE view_rows (r Int32) ENGINE = MergeTree ORDER BY r");
    database.execute(
        "CREATE MATERIALIZED VIEW viewed_mv TO view_rows AS"
            + " SELECT n + throwIf(n < 0, 'negative n') AS r FROM viewed");
    List<Integer> statuses;
    try (RunningService service =
        RunningService.start(database, "viewed", Map.of("BATCH_LINGER_MS", "200"))) {
      List<Callable<Integer>> requests = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        int n = i == 11 ? -11 : i;
        requests.add(() -> service.push("v-" + n, "{\"n\":" + n + "}"));
      }
      statuses = concurrently(requests);
      assertThat(service.service.metrics().viewFailures.value()).isPositive();
    }
    assertThat(statuses).containsOnly(204);
    assertThat(database.query("SELECT count(), uniqExact(n), min(n) FROM viewed"))
        .as("every message in the target table exactly once")
        .isEqualTo("20\t20\t-11");
    assertThat(database.query("SELECT countIf(r < 0) FROM view_rows")).isEqualTo("0");
  }

  /**
   * The "land through a view" layout: the target's engine is Null, so the view's table is the only
   * place its rows go. A CHECK on that table refuses one message; the view's failure must not be
   * read as "the rows are in the target table", which keeps nothing.
   */
  @Test
  void aViewFailingOnANullTableDeadLettersTheGuiltyMessageAndStoresTheOthers() throws Exception {
    createLandThroughAView("landing");
    createDeadLetterTable(database, "landing_errors");
    List<Integer> statuses;
    try (RunningService service =
        RunningService.start(
            database,
            "landing",
            Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", "landing_errors", "BATCH_LINGER_MS", "200"))) {
      statuses = concurrently(landingMessages(service, 8));
    }
    assertThat(statuses).as("every message stored or dead-lettered").containsOnly(204);
    assertThat(database.query("SELECT groupArray(n), groupArray(id) FROM landing_rows_sorted"))
        .as("the good messages in the view's table, once each")
        .isEqualTo("[0,1,2,4,5,6,7]\t['l-0','l-1','l-2','l-4','l-5','l-6','l-7']");
    assertThat(
            database.query(
                "SELECT raw_message, error_message LIKE '%while pushing to view%'"
                    + " FROM landing_errors"))
        .isEqualTo("{\"n\":-3}\t1");
  }

  @Test
  void withoutADeadLetterSinkAViewFailingOnANullTableRefusesOnlyTheGuiltyMessage()
      throws Exception {
    createLandThroughAView("bare");
    List<Integer> statuses;
    try (RunningService service =
        RunningService.start(database, "bare", Map.of("BATCH_LINGER_MS", "200"))) {
      statuses = concurrently(landingMessages(service, 8));
    }
    assertThat(statuses).containsExactly(204, 204, 204, 422, 204, 204, 204, 204);
    assertThat(database.query("SELECT groupArray(n) FROM bare_rows_sorted"))
        .isEqualTo("[0,1,2,4,5,6,7]");
  }

  /** A Null table {@code name}, and a view from it into {@code name_rows}, which refuses n < 0. */
  private void createLandThroughAView(String name) {
    database.execute(
        "CREATE TABLE " + name + " (n Int32, _pubsub_message_id String) ENGINE = Null");
    database.execute(
        "CREATE TABLE "
            + name
            + "_rows (n Int32, id String, CONSTRAINT not_negative CHECK n >= 0)"
            + " ENGINE = MergeTree ORDER BY n");
    database.execute(
        "CREATE MATERIALIZED VIEW "
            + name
            + "_mv TO "
            + name
            + "_rows AS SELECT n, _pubsub_message_id AS id FROM "
            + name);
    database.execute(
        "CREATE VIEW " + name + "_rows_sorted AS SELECT n, id FROM " + name + "_rows ORDER BY n");
  }

  /** Messages {n: i} for i below {@code count}, with message ids l-i; the fourth has n = -3. */
  private static List<Callable<Integer>> landingMessages(RunningService service, int count) {
    List<Callable<Integer>> requests = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int n = i == 3 ? -3 : i;
      requests.add(() -> service.push("l-" + n, "{\"n\":" + n + "}"));
    }
    return requests;
  }

  @Test
  void aNestedMessageWithArraysOfUnequalLengthIsIsolatedAndTheOthersAreStored() throws Exception {
    database.execute(
        "CREATE TABLE nested (id UInt32, n Nested(a Int32, b String), _pubsub_message_id String)"
            + " ENGINE = MergeTree ORDER BY id");
    createDeadLetterTable(database, "nested_errors");
    try (RunningService service =
        RunningService.start(
            database,
            "nested",
            Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", "nested_errors", "BATCH_LINGER_MS", "200"))) {
      List<Callable<Integer>> requests = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        String b = i == 5 ? "[\"x\"]" : "[\"x\",\"y\"]";
        String data = "{\"id\":" + i + ",\"n.a\":[1,2],\"n.b\":" + b + "}";
        requests.add(() -> service.push("n-" + data.hashCode(), data));
      }
      assertThat(concurrently(requests)).containsOnly(204);
    }
    assertThat(database.query("SELECT count(), sum(id), groupUniqArray(length(n.b)) FROM nested"))
        .isEqualTo("11\t61\t[2]");
    assertThat(
            database.query(
                "SELECT raw_message, error_message LIKE '%SIZES_OF_ARRAYS_DONT_MATCH%' FROM nested_errors"))
        .isEqualTo("{\"id\":5,\"n.a\":[1,2],\"n.b\":[\"x\"]}\t1");
  }

  @Test
  void withoutADeadLetterSinkAMessageClickHouseRefusesInPartIsNotWrittenAtAll() throws Exception {
    database.execute(
        "CREATE TABLE whole (n UInt32, _pubsub_message_id String, CONSTRAINT small CHECK n < 100)"
            + " ENGINE = MergeTree ORDER BY n");
    String message = "[{\"n\":1},{\"n\":500},{\"n\":2}]";
    try (RunningService service = RunningService.start(database, "whole", Map.of())) {
      assertThat(service.push("w-1", message)).isEqualTo(422);
      assertThat(service.push("w-1", message)).as("redelivered").isEqualTo(422);
      assertThat(service.push("w-2", "[{\"n\":3},{\"n\":4}]")).isEqualTo(204);
    }
    assertThat(database.query("SELECT groupArray(n) FROM (SELECT n FROM whole ORDER BY n)"))
        .isEqualTo("[3,4]");
  }

  @Test
  void aTruncatedGzipHeaderIsDeadLetteredNotLost() throws Exception {
    database.execute(
        "CREATE TABLE gz (n UInt32, _pubsub_message_id String) ENGINE = MergeTree ORDER BY n");
    createDeadLetterTable(database, "gz_errors");
    try (RunningService service =
        RunningService.start(database, "gz", Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", "gz_errors"))) {
      assertThat(service.push("g-1", new byte[] {0x1f, (byte) 0x8b}, Map.of())).isEqualTo(204);
      assertThat(service.push("g-2", new byte[] {0x1f, (byte) 0x8b, 8}, Map.of())).isEqualTo(204);
    }
    assertThat(database.count("gz")).isZero();
    assertThat(database.query("SELECT error_message FROM gz_errors ORDER BY error_message"))
        .isEqualTo("corrupt gzip data: no complete header\ncorrupt gzip data: no complete header");
  }

  @Test
  void aMessageSpanningTooManyPartitionsIsIsolatedAndTheOthersAreStored() throws Exception {
    database.execute(
        "CREATE TABLE parted (day UInt8, n UInt32, _pubsub_message_id String)"
            + " ENGINE = MergeTree PARTITION BY day ORDER BY n");
    createDeadLetterTable(database, "parted_errors");
    try (RunningService service =
        RunningService.start(
            database,
            "parted",
            Map.of(
                "CLICKHOUSE_DEAD_LETTER_TABLE", "parted_errors",
                "CLICKHOUSE_SETTINGS", "max_partitions_per_insert_block=3",
                "BATCH_LINGER_MS", "200"))) {
      List<Callable<Integer>> requests = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        int n = i;
        String data =
            n == 4
                ? "[{\"day\":1,\"n\":4},{\"day\":2,\"n\":4},{\"day\":3,\"n\":4},{\"day\":4,\"n\":4}]"
                : "{\"day\":1,\"n\":" + n + "}";
        requests.add(() -> service.push("p-" + n, data));
      }
      assertThat(concurrently(requests)).containsOnly(204);
    }
    assertThat(database.query("SELECT groupArray(n) FROM (SELECT n FROM parted ORDER BY n)"))
        .isEqualTo("[0,1,2,3,5,6,7]");
    assertThat(
            database.query(
                "SELECT count() FROM parted_errors WHERE error_message LIKE '%Too many partitions%'"))
        .isEqualTo("1");
  }

  @Test
  void aSettingClickHouseRefusesKeepsTheServiceUnreadyNamingTheVariable() throws Exception {
    database.execute("CREATE TABLE settled (n UInt32) ENGINE = MergeTree ORDER BY n");
    try (RunningService service =
        RunningService.startUnready(
            RunningService.environment(
                database, "settled", Map.of("CLICKHOUSE_SETTINGS", "max_threads=eight")))) {
      assertThat(service.unreadyReasonOnceItNames("CLICKHOUSE_SETTINGS"))
          .contains(
              "CLICKHOUSE_SETTINGS: ClickHouse refuses them: Code: 27. DB::Exception: Cannot parse"
                  + " input");
      assertThat(service.push("s-1", "{\"n\":1}")).isEqualTo(503);
    }
    assertThat(database.count("settled")).isZero();
  }

  @Test
  void aNameThatIsNotInSystemSettingsKeepsTheServiceUnreadyNamingIt() throws Exception {
    database.execute("CREATE TABLE unsettled (n UInt32) ENGINE = MergeTree ORDER BY n");
    try (RunningService service =
        RunningService.startUnready(
            RunningService.environment(
                database,
                "unsettled",
                Map.of("CLICKHOUSE_SETTINGS", "max_threads=2,max_threadz=3,no_such_setting=1")))) {
      assertThat(service.unreadyReasonOnceItNames("CLICKHOUSE_SETTINGS"))
          .isEqualTo(
              "cannot use ClickHouse at "
                  + service.service.config().clickHouse().url()
                  + ": CLICKHOUSE_SETTINGS: max_threadz, no_such_setting are not in its"
                  + " system.settings: only settings may be passed through");
      assertThat(service.push("u-1", "{\"n\":1}")).isEqualTo(503);
    }
    assertThat(database.count("unsettled")).isZero();
  }

  @Test
  void aPushedRequestWaitsInTheBatcherAndHasItsPhasesTimed() throws Exception {
    database.execute(
        "CREATE TABLE timed (n UInt32, _pubsub_message_id String) ENGINE = MergeTree ORDER BY n");
    try (RunningService service = RunningService.start(database, "timed", Map.of())) {
      assertThat(service.push("t-1", "{\"n\":7}")).isEqualTo(204);
      assertThat(service.push("t-2", "{\"n\":8}")).isEqualTo(204);
      // Only a request that waited inside the batcher (where it may write its batch) is timed.
      assertThat(service.get("/metrics").body())
          .contains("pubsub_clickhouse_request_phases_timed_total 2.0\n");
    }
    assertThat(database.query("SELECT n, _pubsub_message_id FROM timed ORDER BY n"))
        .isEqualTo("7\tt-1\n8\tt-2");
  }
}
