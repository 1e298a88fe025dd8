package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.config.ConfigurationException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PushConfigTest {
  private static Map<String, String> environment(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(extra);
    env.put("CLICKHOUSE_URL", "http://127.0.0.1:8123");
    env.put("CLICKHOUSE_TABLE", "t");
    return env;
  }

  @Test
  void anAudienceWithoutAServiceAccountStopsStartBecauseAnyoneCanMintSuchAToken() {
    assertThatThrownBy(
            () -> PushConfig.read(environment(Map.of("PUSH_AUDIENCE", "https://svc.example.run"))))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("PUSH_SERVICE_ACCOUNT: is required with PUSH_AUDIENCE")
        .hasMessageContaining("PUSH_ALLOW_ANY_SERVICE_ACCOUNT=true");
  }

  @Test
  void anyAccountIsAdmittedOnlyWhenSaidExplicitly() {
    PushConfig config =
        PushConfig.read(
            environment(
                Map.of(
                    "PUSH_AUDIENCE", "https://svc.example.run",
                    "PUSH_ALLOW_ANY_SERVICE_ACCOUNT", "true")));
    assertThat(config.authenticator()).isPresent();
  }

  @Test
  void anAudienceWithItsServiceAccountStarts() {
    PushConfig config =
        PushConfig.read(
            environment(
                Map.of(
                    "PUSH_AUDIENCE", "https://svc.example.run",
                    "PUSH_SERVICE_ACCOUNT", "pusher@p.iam.gserviceaccount.com")));
    assertThat(config.authenticator()).isPresent();
  }

  @Test
  void aBatchLargerThanOneInsertBlockIsRefused() {
    assertThatThrownBy(
            () ->
                PushConfig.read(
                    environment(
                        Map.of("BATCH_MAX_ROWS", "20000", "MAX_INSERT_BLOCK_SIZE", "10000"))))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "BATCH_MAX_ROWS: must not exceed MAX_INSERT_BLOCK_SIZE (10000), so that one batch is"
                + " one block");
  }
}
