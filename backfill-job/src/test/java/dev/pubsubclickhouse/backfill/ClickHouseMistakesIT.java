package dev.pubsubclickhouse.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.testing.ClickHouseMistakes;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ClickHouse set up wrongly: the job stops before reading with the one line the push service and
 * replay say too, and no stack trace unless asked for one.
 */
@ClickHouseTest
class ClickHouseMistakesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final TestDatabase db;

  ClickHouseMistakesIT(TestDatabase db) {
    this.db = db;
  }

  /** A dry run: ClickHouse is asked first, BigQuery (nothing listens) never. */
  private JobRun dryRun(Map<String, String> environment, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--bigQueryEndpoint=http://127.0.0.1:" + LocalClickHouse.freePort(),
                "--project=local",
                "--inputTableSpec=local:dataset.events",
                "--clickHouseTable=events",
                "--outputDeadletterTable=none",
                "--dryRun"));
    args.addAll(List.of(more));
    environment.put("CLICKHOUSE_DATABASE", db.name());
    return JobRun.of(environment, args.toArray(String[]::new));
  }

  private static List<JsonNode> lines(JobRun run) throws Exception {
    List<JsonNode> lines = new ArrayList<>();
    for (String line : run.out().lines().toList()) {
      lines.add(JSON.readTree(line));
    }
    return lines;
  }

  @ParameterizedTest
  @EnumSource(ClickHouseMistakes.class)
  void aMistakeStopsItWithTheServicesOneLineAndNoStackTrace(ClickHouseMistakes mistake)
      throws Exception {
    Assumptions.assumeTrue(
        db.server().url().startsWith("http://127.0.0.1"), "needs the local pipeline user");
    db.execute("CREATE TABLE IF NOT EXISTS events (n UInt32) ENGINE = MergeTree ORDER BY n");
    try (ClickHouseMistakes.Setup setup = mistake.settings(db.server())) {
      JobRun run = dryRun(setup.environment());

      assertThat(run.exitCode()).as(run.output()).isEqualTo(1);
      List<JsonNode> lines = lines(run);
      assertThat(lines).allMatch(line -> !line.has("stack_trace"), "no stack trace");
      assertThat(
              lines.stream()
                  .filter(line -> !line.path("severity").asText().equals("INFO"))
                  .map(line -> line.path("message").asText()))
          .as(run.output())
          .containsExactly("backfill failed before reading: " + mistake.line(setup.url()));
      assertThat(run.output()).doesNotContain("wrong-password");
    }
  }

  @Test
  void verboseAddsTheClientsRetriesAndTheStackTrace() throws Exception {
    try (ClickHouseMistakes.Setup setup = ClickHouseMistakes.CLOSED_PORT.settings(db.server())) {
      JobRun run = dryRun(setup.environment(), "--verbose");

      assertThat(run.exitCode()).isEqualTo(1);
      JsonNode failed =
          lines(run).stream()
              .filter(line -> line.path("severity").asText().equals("ERROR"))
              .reduce((first, second) -> second)
              .orElseThrow();
      assertThat(failed.path("message").asText())
          .isEqualTo(
              "backfill failed before reading: "
                  + ClickHouseMistakes.CLOSED_PORT.line(setup.url()));
      assertThat(failed.path("stack_trace").asText()).contains("Connection refused");
      assertThat(run.out()).contains("\"message\":\"Retrying.\"");
    }
  }

  @Test
  void aVariableOneTypoFromAParameterIsNamedOthersToolsVariablesNever() throws Exception {
    try (ClickHouseMistakes.Setup setup = ClickHouseMistakes.CLOSED_PORT.settings(db.server())) {
      Map<String, String> environment = setup.environment();
      environment.put("CLICKHOUSE_TABEL", "events");
      environment.put("PUBSUB_EMULATOR_HOST", "127.0.0.1:8085");
      environment.put("OTEL_SERVICE_NAME", "backfill");
      environment.put("GOOGLE_CLOUD_PROJEKT", "local");
      environment.put("JAVA_TOOL_OPTIONS", "-Xmx1g");
      JobRun run = dryRun(environment);

      assertThat(
              lines(run).stream()
                  .filter(line -> line.path("severity").asText().equals("WARNING"))
                  .map(line -> line.path("message").asText()))
          .containsExactly("CLICKHOUSE_TABEL is not a parameter; did you mean CLICKHOUSE_TABLE?");
    }
  }
}
