package dev.pubsubclickhouse.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MisspeltVariablesTest {
  private static final List<Parameter> PARAMETERS =
      List.of(
          Parameter.of("CLICKHOUSE_TABLE", null, "t"),
          Parameter.of("CLICKHOUSE_TABLES", null, "t"),
          Parameter.of("BATCH_MAX_ROWS", "10000", "r"),
          Parameter.of("PUBSUB_ENDPOINT", null, "e"),
          Parameter.of("PORT", "8080", "p"));

  @Test
  void aVariableWithinTwoEditsOfAParameterIsNamedWithTheParameter() {
    assertThat(
            MisspeltVariables.in(
                Map.of(
                    "CLICKHOUSE_TABEL", "events",
                    "BACTH_MAX_ROWS", "5",
                    "BATCH_MAXROWS", "5",
                    "CLICKHOUSE_TABLE", "events"),
                PARAMETERS))
        .containsExactly(
            "BACTH_MAX_ROWS is not a parameter; did you mean BATCH_MAX_ROWS?",
            "BATCH_MAXROWS is not a parameter; did you mean BATCH_MAX_ROWS?",
            "CLICKHOUSE_TABEL is not a parameter; did you mean CLICKHOUSE_TABLE?");
  }

  @Test
  void otherToolsVariablesShortNamesAndFarNamesAreNeverNamed() {
    assertThat(
            MisspeltVariables.in(
                Map.of(
                    "PUBSUB_EMULATOR_HOST", "localhost:8085",
                    "OTEL_SERVICE_NAME", "x",
                    "GOOGLE_CLOUD_PROJEKT", "p",
                    "PATH", "/bin",
                    "HOSTNAME", "h",
                    "CLICKHOUSE_PASSWORD_FILE", "x",
                    "PUBSUB_ENDPOINTS", "x"),
                PARAMETERS))
        .containsExactly("PUBSUB_ENDPOINTS is not a parameter; did you mean PUBSUB_ENDPOINT?");
  }

  @Test
  void editDistanceCountsAnAdjacentSwapAsOneEdit() {
    assertThat(MisspeltVariables.withinTwoEdits("ABCDEFGH", "BADCEFGH")).isTrue();
    assertThat(MisspeltVariables.withinTwoEdits("ABCDEFGH", "BADCFEGH")).isFalse();
    assertThat(MisspeltVariables.withinTwoEdits("ABCDEFGH", "ABCDEFGHIJ")).isTrue();
    assertThat(MisspeltVariables.withinTwoEdits("ABCDEFGH", "ABCDEFGHIJK")).isFalse();
  }
}
