package dev.pubsubclickhouse.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Replay reads messages with the shared {@code messages} module and never needs the push service:
 * none of the service's classes is on its class path, directly or through another module.
 */
class ModuleBoundaryTest {
  @Test
  void thePushServiceIsNotOnReplaysClassPath() {
    assertThatThrownBy(() -> Class.forName("dev.pubsubclickhouse.function.PushService"))
        .isInstanceOf(ClassNotFoundException.class);
    assertThatThrownBy(() -> Class.forName("dev.pubsubclickhouse.function.PushParameters"))
        .isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void theMessagesModuleIs() throws Exception {
    assertThat(Class.forName("dev.pubsubclickhouse.messages.MessageEncoder")).isNotNull();
  }
}
