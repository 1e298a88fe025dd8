package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.config.ConfigurationException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A 2xx is never given early because of a setting: those settings are refused at start. */
class PushConfigTest {
  private static PushConfig read(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", "http://127.0.0.1:8123");
    env.put("CLICKHOUSE_TABLE", "events");
    env.putAll(extra);
    return PushConfig.read(env);
  }

  @Test
  void distributedInsertsAreSynchronousByDefault() {
    assertThat(read(Map.of()).clickHouse().insertOptions().distributedSync()).isTrue();
    assertThat(
            read(Map.of("INSERT_DISTRIBUTED_SYNC", "true"))
                .clickHouse()
                .insertOptions()
                .distributedSync())
        .isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"false", "0", "no"})
  void asynchronousDistributedInsertsAreRefusedWithOneLine(String value) {
    assertThatThrownBy(() -> read(Map.of("INSERT_DISTRIBUTED_SYNC", value)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "--insertDistributedSync (INSERT_DISTRIBUTED_SYNC): false is refused: a Distributed"
                + " table would answer once the rows are queued on the server that took the"
                + " INSERT, before they are on their shards, and the messages would be"
                + " acknowledged; leave it true")
        .hasMessageNotContaining("\n");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "distributed_foreground_insert=0",
        "insert_distributed_sync=0",
        "Insert_Distributed_Sync=1",
        "async_insert=1",
        "wait_for_async_insert=0",
        "insert_deduplication_token=fixed"
      })
  void settingsThatDecideWhenRowsCountAsWrittenAreRefusedInClickHouseSettings(String setting) {
    String name = setting.substring(0, setting.indexOf('='));
    assertThatThrownBy(() -> read(Map.of("CLICKHOUSE_SETTINGS", "max_threads=2," + setting)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(
            "CLICKHOUSE_SETTINGS: "
                + name
                + " is refused here: it decides when rows count as written; ")
        .hasMessageNotContaining("\n");
  }

  @Test
  void otherSettingsPassThrough() {
    assertThat(
            read(Map.of("CLICKHOUSE_SETTINGS", "max_threads=2,insert_quorum_timeout=60000"))
                .clickHouse()
                .insertOptions()
                .extraSettings())
        .containsEntry("max_threads", "2")
        .containsEntry("insert_quorum_timeout", "60000");
  }
}
