package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.LocalClickHouse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Where the emulator is missing, {@code scripts/pubsub-emulator} (which the tests' launcher runs
 * and whose words it passes on) says how to install it, and the emulator tests fail with that line.
 */
class PubSubEmulatorScriptTest {
  @Test
  void withoutTheEmulatorStartFailsWithTheLineThatInstallsIt() throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder("bash", Path.of("../scripts/pubsub-emulator").toString(), "start")
            .redirectErrorStream(true);
    // An explicit launcher that is not there stands for a machine without the emulator.
    builder.environment().put("PUBSUB_EMULATOR_LAUNCHER", "/nonexistent/cloud-pubsub-emulator");
    builder.environment().put("PUBSUB_EMULATOR_DIR", "target/pubsub-emulator/missing");
    builder.environment().put("PUBSUB_EMULATOR_PORT", Integer.toString(LocalClickHouse.freePort()));
    Process missing = builder.start();
    assertThat(missing.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String output = new String(missing.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(missing.exitValue()).isEqualTo(3);
    assertThat(output)
        .contains("the Pub/Sub emulator is not installed")
        .contains("gcloud components install pubsub-emulator")
        .contains("google-cloud-cli-pubsub-emulator");
  }
}
