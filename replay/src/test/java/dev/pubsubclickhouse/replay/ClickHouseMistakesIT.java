package dev.pubsubclickhouse.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseMistakes;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ClickHouse set up wrongly: {@code replay table} stops with the one line the push service and the
 * backfill say too, and no stack trace unless asked for one.
 */
@ClickHouseTest
class ClickHouseMistakesIT {
  private final TestDatabase db;

  ClickHouseMistakesIT(TestDatabase db) {
    this.db = db;
  }

  private Run replay(Map<String, String> environment, String... more) {
    environment.put("CLICKHOUSE_DATABASE", db.name());
    environment.put("CLICKHOUSE_TABLE", "events");
    environment.put("CLICKHOUSE_DEAD_LETTER_TABLE", "dead_letters");
    String[] args = new String[more.length + 2];
    args[0] = "table";
    args[1] = "--dryRun";
    System.arraycopy(more, 0, args, 2, more.length);
    return Run.of(environment, args);
  }

  @ParameterizedTest
  @EnumSource(ClickHouseMistakes.class)
  void aMistakeStopsItWithTheServicesOneLine(ClickHouseMistakes mistake) {
    Assumptions.assumeTrue(
        db.server().url().startsWith("http://127.0.0.1"), "needs the local pipeline user");
    try (ClickHouseMistakes.Setup setup = mistake.settings(db.server())) {
      Run run = replay(setup.environment());

      assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.FAILED);
      assertThat(run.out()).as(run.toString()).isEmpty();
      assertThat(run.err()).isEqualTo("replay: " + mistake.line(setup.url()) + "\n");
    }
  }

  @Test
  void verboseAddsTheClientsRetries() {
    try (ClickHouseMistakes.Setup setup = ClickHouseMistakes.CLOSED_PORT.settings(db.server())) {
      Run run = replay(setup.environment(), "--verbose");

      assertThat(run.exitCode()).isEqualTo(ExitCode.FAILED);
      assertThat(run.err())
          .contains("Retrying.")
          .endsWith(
              "replay: "
                  + ClickHouseMistakes.CLOSED_PORT.line(setup.url())
                  + " (error=com.clickhouse.client.api.ClientException: Failed to get query"
                  + " response)\n");
    }
  }

  @Test
  void aVariableOneTypoFromAParameterIsNamedOtherToolsVariablesNever() {
    try (ClickHouseMistakes.Setup setup = ClickHouseMistakes.CLOSED_PORT.settings(db.server())) {
      Map<String, String> environment = setup.environment();
      environment.put("CLICKHOUSE_TABEL", "events");
      environment.put("PUBSUB_EMULATOR_HOST", "127.0.0.1:8085");
      environment.put("OTEL_SERVICE_NAME", "replay");
      environment.put("GOOGLE_CLOUD_PROJEKT", "local");
      environment.put("JAVA_TOOL_OPTIONS", "-Xmx1g");
      Run run = replay(environment);

      assertThat(run.err().lines())
          .containsExactly(
              "CLICKHOUSE_TABEL is not a parameter; did you mean CLICKHOUSE_TABLE?",
              "replay: " + ClickHouseMistakes.CLOSED_PORT.line(setup.url()));
    }
  }
}
