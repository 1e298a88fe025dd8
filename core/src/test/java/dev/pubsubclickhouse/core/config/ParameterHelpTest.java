package dev.pubsubclickhouse.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ParameterHelpTest {
  private static final List<Parameter> PARAMETERS =
      List.of(
          Parameter.of("CLICKHOUSE_TABLE", null, "Target table.").withFlag("clickHouseTable"),
          Parameter.of("PORT", "8080", "HTTP port."));

  @Test
  void theEnvironmentTextNamesVariablesWithTheirDefaultsAndNoFlag() {
    assertThat(ParameterHelp.environmentText(PARAMETERS))
        .isEqualTo(
            """
            Environment variables (the only configuration):
              CLICKHOUSE_TABLE
                  Target table.
              PORT
                  HTTP port. Default: 8080.
            """);
  }

  @Test
  void theFlagTextNamesTheFlagBesideTheVariable() {
    assertThat(ParameterHelp.text(PARAMETERS))
        .contains("  CLICKHOUSE_TABLE, --clickHouseTable\n")
        .contains("  PORT\n");
  }
}
