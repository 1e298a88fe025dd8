package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Jetty;
import org.junit.jupiter.api.Test;

/**
 * The Jetty that serves pushes is the one jetty-bom pins, not the older copy the Functions
 * Framework invoker bundles inside its own jar: both hold the same classes, and the first on the
 * class path wins.
 */
class JettyVersionTest {
  @Test
  void theServingJettyIsThePinnedOneNotTheInvokersBundledCopy() {
    String jar = Server.class.getProtectionDomain().getCodeSource().getLocation().toString();

    assertThat(jar).contains("jetty-server-12.1.14");
    assertThat(Jetty.VERSION).isEqualTo("12.1.14");
  }
}
