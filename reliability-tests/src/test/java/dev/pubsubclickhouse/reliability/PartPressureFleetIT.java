package dev.pubsubclickhouse.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.driver.PushDriver.Summary;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Flow control across a fleet: three service jar processes write one table whose part limits are
 * low (delay at 10 parts, refuse at 20) and whose merges are stopped, so that every INSERT adds a
 * part that stays. The push driver spreads the messages over the three, as Cloud Run's load
 * balancer would, and behaves as Pub/Sub does on a nack. The instances must answer 429 before
 * ClickHouse refuses: no client ever sees a failure (so no 503 from a "too many parts"), ClickHouse
 * refuses no INSERT, and every acknowledged message is in the table with the values it carried.
 * Then merges run again, the messages Pub/Sub gave up on are sent once more, and all arrive.
 */
@ClickHouseTest
class PartPressureFleetIT {
  private static final int INSTANCES = 3;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TestDatabase database;

  PartPressureFleetIT(TestDatabase database) {
    this.database = database;
  }

  @Test
  void aFleetAtThePartLimitAnswers429NeverTooManyPartsAndStoresEveryAcknowledgedMessage()
      throws Exception {
    Sql sql = Sql.of(database);
    String table = "fleet_pressure";
    sql.query(
        "CREATE TABLE "
            + table
            + " "
            + Ledger.TARGET
            + " SETTINGS parts_to_delay_insert = 10, parts_to_throw_insert = 20");
    sql.query("CREATE TABLE " + table + "_errors " + Ledger.ERRORS);
    sql.query("SYSTEM STOP MERGES " + table);
    Ledger ledger = new Ledger(Results.messages());
    Path work = Results.runDirectory("fleet-pressure");
    List<ServiceProcess> fleet = new ArrayList<>();
    try {
      for (int i = 0; i < INSTANCES; i++) {
        Map<String, String> env = database.server().environment(database.name());
        env.put("CLICKHOUSE_TABLE", table);
        env.put("CLICKHOUSE_DEAD_LETTER_TABLE", table + "_errors");
        env.put("TABLE_WATCH_INTERVAL_MS", "200");
        fleet.add(
            new ServiceProcess(
                    env,
                    List.of("-Xmx128m", "-XX:+UseSerialGC"),
                    work.resolve("service-" + i + ".log"),
                    LocalClickHouse.freePort())
                .start());
      }
      String endpoints =
          fleet.stream().map(s -> s.url().toString()).collect(Collectors.joining(","));

      // 1. Merges stopped: a few batches fit below the limit, then the fleet refuses.
      Path firstDir = Files.createDirectories(work.resolve("first"));
      DriverRun first =
          DriverRun.start(
              URI.create(endpoints),
              ledger.write(work.resolve("input.ndjson")),
              firstDir,
              List.of(
                  "--concurrency=8",
                  "--max-attempts=3",
                  "--min-backoff-ms=50",
                  "--max-backoff-ms=200",
                  "--timeout-ms=20000"));
      Summary firstSummary = first.await(300);
      long throttled = 0;
      for (ServiceProcess service : fleet) {
        throttled += service.metric("pubsub_clickhouse_throttled_total");
      }
      long partsAtLimit =
          sql.number(
              "SELECT count() FROM system.parts WHERE active AND database = currentDatabase()"
                  + " AND table = '"
                  + table
                  + "'");
      Set<String> gaveUp = Ledger.deadLetterIds(first.deadLetterFile);
      Ledger.Account atLimit = ledger.account(sql, table, table + "_errors", first.deadLetterFile);
      Set<String> keptAtLimit =
          Set.copyOf(
              sql.query(
                      "SELECT id FROM "
                          + table
                          + " UNION DISTINCT SELECT JSONExtractString(raw_message, 'id') FROM "
                          + table
                          + "_errors FORMAT TSV")
                  .lines()
                  .toList());

      // 2. Merges run again; what Pub/Sub gave up on is sent once more (a dead-letter replay).
      sql.query("SYSTEM START MERGES " + table);
      sql.query("OPTIMIZE TABLE " + table + " FINAL");
      Path replayDir = Files.createDirectories(work.resolve("replay"));
      DriverRun replay =
          DriverRun.start(
              URI.create(endpoints),
              replayInput(first.deadLetterFile, work.resolve("replay.ndjson")),
              replayDir,
              List.of(
                  "--concurrency=8",
                  "--max-attempts=100",
                  "--min-backoff-ms=100",
                  "--max-backoff-ms=1000",
                  "--timeout-ms=20000"));
      Summary replaySummary = replay.await(300);
      Ledger.Account settled = ledger.account(sql, table, table + "_errors", replay.deadLetterFile);
      database.flushLogs();
      long refusedByClickHouse =
          sql.number(
              "SELECT count() FROM system.query_log WHERE exception_code = 252"
                  + " AND has(databases, currentDatabase())");
      Results.record(
          "fleet-pressure.tsv",
          String.format(
              Locale.ROOT,
              "instances=%d\tmessages=%d\tfirst: answers=%s acked=%d dead-lettered=%d"
                  + " throttled=%d parts=%d\treplay: answers=%s acked=%d\t%s\t252s=%d",
              INSTANCES,
              ledger.size(),
              firstSummary.answers(),
              firstSummary.acked(),
              firstSummary.deadLettered(),
              throttled,
              partsAtLimit,
              replaySummary.answers(),
              replaySummary.acked(),
              settled,
              refusedByClickHouse));

      assertThat(firstSummary.answers()).as("answers at the limit").containsKeys("204", "429");
      assertThat(firstSummary.answers().keySet())
          .as("no failure reached a client, only acks and 429")
          .containsOnly("204", "429");
      assertThat(throttled).as("429s for part pressure, counted by the instances").isPositive();
      assertThat(partsAtLimit).as("active parts with merges stopped").isLessThan(20);
      assertThat(refusedByClickHouse).as("INSERTs ClickHouse refused (code 252)").isZero();
      assertThat(atLimit.missing()).as("messages nowhere after the first run").isEmpty();
      assertThat(atLimit.wrongValues())
          .as("stored rows whose values differ from the message")
          .isEmpty();
      assertThat(gaveUp)
          .as("messages refused at every attempt are in no table")
          .doesNotContainAnyElementsOf(keptAtLimit);
      assertThat(replaySummary.answers().keySet()).doesNotContain("500", "503", "error");
      assertThat(replaySummary.acked())
          .as("every message Pub/Sub gave up on, once merges ran")
          .isEqualTo(gaveUp.size());
      assertThat(settled.missing()).isEmpty();
      assertThat(settled.targetIds() + settled.errorIds()).isEqualTo(ledger.size());
      assertThat(settled.badInTarget()).isEmpty();
      assertThat(settled.goodInErrors()).isEmpty();
      assertThat(settled.wrongValues()).isEmpty();
      assertThat(settled.goodNotInTarget()).isEmpty();
    } finally {
      for (ServiceProcess service : fleet) {
        service.close();
      }
    }
  }

  /** The data of each dead-lettered message, one line each: the driver's input for a replay. */
  private static Path replayInput(Path deadLetters, Path input) throws Exception {
    List<String> lines = new ArrayList<>();
    if (Files.exists(deadLetters)) {
      for (String line : Files.readAllLines(deadLetters, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          JsonNode entry = JSON.readTree(line);
          lines.add(
              new String(
                  Base64.getDecoder().decode(entry.get("data").asText()), StandardCharsets.UTF_8));
        }
      }
    }
    Files.write(input, lines, StandardCharsets.UTF_8);
    return input;
  }
}
