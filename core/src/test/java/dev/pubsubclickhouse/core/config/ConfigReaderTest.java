package dev.pubsubclickhouse.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigReaderTest {
  private static final Parameter ROWS = Parameter.of("BATCH_MAX_ROWS", "100", "rows");
  private static final Parameter TABLE =
      Parameter.of("CLICKHOUSE_TABLE", null, "table").withFlag("clickHouseTable");
  private static final Parameter PASSWORD =
      Parameter.of("CLICKHOUSE_PASSWORD", null, "pw").asSecret();

  @Test
  void aMissingRequiredParameterIsNamedWithItsFlagOnACommandLine() {
    assertThatThrownBy(() -> new ConfigReader(Map.of(), Map.of()).required(TABLE))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--clickHouseTable (CLICKHOUSE_TABLE): is required");
  }

  @Test
  void aDeployableConfiguredByItsEnvironmentAloneNamesNoFlag() {
    assertThatThrownBy(() -> new ConfigReader(Map.of()).required(TABLE))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("CLICKHOUSE_TABLE: is required");
    assertThatThrownBy(
            () -> new ConfigReader(Map.of("CLICKHOUSE_TABLE", "lots")).integer(TABLE, 1, 10))
        .hasMessage("CLICKHOUSE_TABLE: expected a whole number, got 'lots'");
  }

  @Test
  void aNumberOutOfRangeIsNamedWithItsBounds() {
    assertThatThrownBy(() -> new ConfigReader(Map.of("BATCH_MAX_ROWS", "0")).integer(ROWS, 1, 10))
        .hasMessage("BATCH_MAX_ROWS: must be between 1 and 10, got 0");
  }

  @Test
  void aNonNumberIsQuoted() {
    assertThatThrownBy(
            () -> new ConfigReader(Map.of("BATCH_MAX_ROWS", "lots")).integer(ROWS, 1, 10))
        .hasMessage("BATCH_MAX_ROWS: expected a whole number, got 'lots'");
  }

  @Test
  void aSecretValueIsNeverInTheMessage() {
    assertThatThrownBy(
            () -> new ConfigReader(Map.of("CLICKHOUSE_PASSWORD", "hunter2")).bool(PASSWORD))
        .hasMessage("CLICKHOUSE_PASSWORD: expected true or false, got (a value that is not shown)")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void aUrlWithCredentialsIsRefusedWithoutEchoingThem() {
    Parameter url = Parameter.of("CLICKHOUSE_URL", null, "url");
    assertThatThrownBy(
            () ->
                new ConfigReader(Map.of("CLICKHOUSE_URL", "http://u:hunter2@host:8123"))
                    .httpUrl(url))
        .hasMessage(
            "CLICKHOUSE_URL: must not hold credentials; set the user and password parameters");
    assertThatThrownBy(() -> new ConfigReader(Map.of("CLICKHOUSE_URL", "ftp://host")).httpUrl(url))
        .hasMessage("CLICKHOUSE_URL: expected http(s)://host:port, got 'ftp://host'");
  }

  @Test
  void defaultsApplyWhenUnsetOrBlank() {
    assertThat(new ConfigReader(Map.of("BATCH_MAX_ROWS", " ")).integer(ROWS, 1, 1000))
        .isEqualTo(100);
  }

  @Test
  void aFlagWinsOverTheEnvironment() {
    ConfigReader reader =
        new ConfigReader(
            Map.of("CLICKHOUSE_TABLE", "from_env"), Map.of("clickHouseTable", "from_flag"));
    assertThat(reader.required(TABLE)).isEqualTo("from_flag");
  }

  @Test
  void keyValuePairsKeepTheirOrder() {
    Parameter settings = Parameter.of("CLICKHOUSE_SETTINGS", null, "s");
    assertThat(new ConfigReader(Map.of("CLICKHOUSE_SETTINGS", "b=2, a = 1")).keyValues(settings))
        .containsExactly(Map.entry("b", "2"), Map.entry("a", "1"));
    assertThatThrownBy(
            () -> new ConfigReader(Map.of("CLICKHOUSE_SETTINGS", "novalue")).keyValues(settings))
        .hasMessage(
            "CLICKHOUSE_SETTINGS: expected key=value pairs separated by commas, got 'novalue'");
  }

  @Test
  void anInvalidTableNameIsRefusedByName() {
    assertThatThrownBy(
            () ->
                ClickHouseConfig.read(
                    new ConfigReader(
                        Map.of(
                            "CLICKHOUSE_URL",
                            "http://localhost:8123",
                            "CLICKHOUSE_TABLE",
                            "logs; DROP TABLE x")),
                    new SecretManagerAccess(Map.of())))
        .hasMessage(
            "CLICKHOUSE_TABLE: table name 'logs; DROP TABLE x' is invalid: use 1 to 255 letters, digits, '_', '$' or '-'");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://keys.example/certs",
        "http://127.0.0.1:9000/certs",
        "http://127.200.3.4/",
        "http://localhost:4318/v1/metrics",
        "http://LOCALHOST/",
        "http://[::1]:8080/"
      })
  void aSecureUrlIsHttpsOrHttpToThisMachine(String url) {
    Parameter keys = Parameter.of("KEYS_URL", null, "keys");
    assertThat(new ConfigReader(Map.of("KEYS_URL", url)).secureUrl(keys)).hasToString(url);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://keys.example/certs",
        "http://10.0.0.7:8123",
        "http://128.0.0.1/",
        "http://localhost.example/",
        "http://[::2]:8080/",
        "http://127.0.0.1.example/"
      })
  void aSecureUrlRefusesPlainHttpToAnotherMachine(String url) {
    Parameter keys = Parameter.of("KEYS_URL", null, "keys");
    assertThatThrownBy(() -> new ConfigReader(Map.of("KEYS_URL", url)).secureUrl(keys))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "KEYS_URL: must be https:// (http:// only to this machine: 127.0.0.0/8, ::1,"
                + " localhost), got '"
                + url
                + "'");
  }
}
