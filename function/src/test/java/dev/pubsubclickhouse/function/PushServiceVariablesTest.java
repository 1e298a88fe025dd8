package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.config.Parameter;
import dev.pubsubclickhouse.core.config.PushServiceVariables;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The names the backfill and replay leave to the push service are the service's parameters. */
class PushServiceVariablesTest {
  @Test
  void theyAreExactlyThePushParameters() {
    assertThat(PushServiceVariables.NAMES)
        .isEqualTo(PushParameters.ALL.stream().map(Parameter::env).collect(Collectors.toSet()));
  }
}
