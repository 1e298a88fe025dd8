package dev.pubsubclickhouse.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ClickHouseExtensionIT {
  /**
   * Two test JVMs of one checkout at once (modules built in parallel with {@code mvn -T}, {@code
   * -DforkCount=2}, or two {@code mvn verify -pl ...} in one checkout): each starts its own server,
   * and neither stops the other's.
   */
  @Test
  void twoTestRunsOfOneCheckoutEachStartAServerOfTheirOwn() {
    LocalClickHouse first = ClickHouseExtension.startOwnServer();
    try {
      LocalClickHouse second = ClickHouseExtension.startOwnServer();
      try {
        assertThat(second.directory()).isNotEqualTo(first.directory());
        assertThat(answers(first)).as(first.url()).isTrue();
        assertThat(answers(second)).as(second.url()).isTrue();
      } finally {
        ClickHouseExtension.stopOwnServer(second);
      }
      assertThat(answers(second)).as("stopped: " + second.url()).isFalse();
      assertThat(answers(first)).as("the other run's server still answers").isTrue();
    } finally {
      ClickHouseExtension.stopOwnServer(first);
    }
  }

  private static boolean answers(LocalClickHouse server) {
    return LocalClickHouse.answers(
        Map.of("CLICKHOUSE_LOCAL_PORT", Integer.toString(server.port())));
  }
}
