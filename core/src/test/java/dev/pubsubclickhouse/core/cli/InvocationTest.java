package dev.pubsubclickhouse.core.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InvocationTest {
  @Test
  void itsTextNamesNeitherTheEnvironmentNorTheArguments() {
    PrintStream sink = new PrintStream(new ByteArrayOutputStream());
    Invocation invocation =
        new Invocation(
            Map.of("CLICKHOUSE_PASSWORD", "env-secret-value"),
            new String[] {"--clickHouseUrl", "https://user:arg-secret-value@host:8443"},
            sink,
            sink,
            false);

    assertThat(invocation.toString())
        .isEqualTo("Invocation[2 arguments, terminal=false]")
        .doesNotContain("env-secret-value")
        .doesNotContain("arg-secret-value");
  }
}
