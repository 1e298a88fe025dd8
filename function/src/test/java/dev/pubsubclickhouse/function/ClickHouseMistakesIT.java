package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseMistakes;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ClickHouse set up wrongly: the service serves unready, and {@code /healthz} says why in the one
 * line the backfill and replay say too.
 */
@ClickHouseTest
class ClickHouseMistakesIT {
  private final TestDatabase db;

  ClickHouseMistakesIT(TestDatabase db) {
    this.db = db;
  }

  @ParameterizedTest
  @EnumSource(ClickHouseMistakes.class)
  void healthzSaysWhatToCheck(ClickHouseMistakes mistake) throws Exception {
    Assumptions.assumeTrue(
        db.server().url().startsWith("http://127.0.0.1"), "needs the local pipeline user");
    db.execute("CREATE TABLE IF NOT EXISTS events (n UInt32) ENGINE = MergeTree ORDER BY n");
    try (ClickHouseMistakes.Setup setup = mistake.settings(db.server())) {
      Map<String, String> environment =
          RunningService.environment(db, "events", Map.of("PUSH_AUTH", "none"));
      environment.putAll(setup.environment());
      try (RunningService running = RunningService.startUnready(environment)) {
        HttpResponse<String> health = running.healthOnceTried();

        assertThat(health.statusCode()).isEqualTo(503);
        assertThat(health.body().strip()).isEqualTo(mistake.line(setup.url()));
      }
    }
  }
}
