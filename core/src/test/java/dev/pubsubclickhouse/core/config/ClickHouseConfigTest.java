package dev.pubsubclickhouse.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClickHouseConfigTest {
  private static ClickHouseConfig read(String settings) {
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", "http://127.0.0.1:8123");
    env.put("CLICKHOUSE_TABLE", "t");
    env.put("CLICKHOUSE_SETTINGS", settings);
    return ClickHouseConfig.read(new ConfigReader(env), new SecretManagerAccess(Map.of()));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "wait_for_async_insert=0",
        "async_insert=1",
        "insert_deduplication_token=x",
        "Materialized_Views_Ignore_Errors=1",
        "input_format_with_types_use_header=0",
        "distributed_foreground_insert=0",
        "send_progress_in_http_headers=1",
        "min_insert_block_size_rows=1",
        "input_format_binary_decode_types_in_binary_format=1",
        "max_threads=2,insert_quorum=2"
      })
  void aSettingThatA2xxDependsOnCannotBePassedThroughAndStopsStartWithOneLine(String settings) {
    String name = settings.substring(settings.lastIndexOf(',') + 1, settings.lastIndexOf('='));
    assertThatThrownBy(() -> read(settings))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "CLICKHOUSE_SETTINGS: the setting "
                + name
                + " cannot be passed through: the service sets it (see the README's configuration"
                + " table for the variable that chooses it)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"max_threads=2", "max_partitions_per_insert_block=1000"})
  void otherSettingsPassThrough(String settings) {
    String[] pair = settings.split("=");
    assertThat(read(settings).insertOptions().extraSettings()).containsEntry(pair[0], pair[1]);
  }

  @ParameterizedTest
  @ValueSource(strings = {"t", "default.t"})
  void theTargetTableCannotBeTheDeadLetterTable(String deadLetterTable) {
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", "http://127.0.0.1:8123");
    env.put("CLICKHOUSE_TABLE", "t");
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", deadLetterTable);
    assertThatThrownBy(
            () -> ClickHouseConfig.read(new ConfigReader(env), new SecretManagerAccess(Map.of())))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "CLICKHOUSE_DEAD_LETTER_TABLE: names the target table default.t (CLICKHOUSE_TABLE):"
                + " dead letters need a table of their own, one no message is written to");
  }

  @Test
  void aCaFileThatHoldsNoCertificateStopsStartWithOneLine(@TempDir Path directory)
      throws Exception {
    // Before, it passed here and client-v2 threw "Failed to create SSL context" with a stack trace
    // out of main (exit 1); an empty file gave a trust store that trusts nothing.
    for (String content : new String[] {"not a certificate\n", ""}) {
      Path pem = Files.writeString(directory.resolve("ca.pem"), content);
      Map<String, String> env = new HashMap<>();
      env.put("CLICKHOUSE_URL", "https://127.0.0.1:8443");
      env.put("CLICKHOUSE_TABLE", "t");
      env.put("CLICKHOUSE_CA_CERT", pem.toString());
      assertThatThrownBy(
              () -> ClickHouseConfig.read(new ConfigReader(env), new SecretManagerAccess(Map.of())))
          .isInstanceOf(ConfigurationException.class)
          .hasMessageStartingWith("CLICKHOUSE_CA_CERT: no certificate in " + pem.toAbsolutePath())
          .hasMessageNotContaining("\n");
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "http://10.1.2.3:8123|10.1.2.3",
        "http://clickhouse.internal:8123|clickhouse.internal"
      })
  void plainHttpToAnotherMachineWarnsThatThePasswordTravelsInClear(String urlAndHost) {
    String[] parts = urlAndHost.split("\\|");
    assertThat(warningsReading(parts[0]))
        .containsExactly(
            "CLICKHOUSE_URL is http:// to "
                + parts[1]
                + ": the ClickHouse password and the rows travel in clear; use https://"
                + " (ClickHouse Cloud: port 8443) unless every network between the two is trusted");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"http://127.0.0.1:8123", "http://localhost:8123", "https://ch.example:8443"})
  void httpsOrThisMachineNeedsNoWarning(String url) {
    assertThat(warningsReading(url)).isEmpty();
  }

  private static List<String> warningsReading(String url) {
    List<String> warnings = new ArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
              warnings.add(record.getMessage());
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger logger = Logger.getLogger(ClickHouseConfig.class.getName());
    logger.addHandler(capture);
    try {
      ClickHouseConfig.read(
          new ConfigReader(Map.of("CLICKHOUSE_URL", url, "CLICKHOUSE_TABLE", "t")),
          new SecretManagerAccess(Map.of()));
    } finally {
      logger.removeHandler(capture);
    }
    return warnings;
  }
}
