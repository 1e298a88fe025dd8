package dev.pubsubclickhouse.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class JdbcUrlTest {
  @Test
  void aPlainUrlIsHttpOnItsPortAndDatabase() {
    assertThat(JdbcUrl.parse("jdbc:clickhouse://localhost:8123/default"))
        .isEqualTo(
            new JdbcUrl(URI.create("http://localhost:8123"), Optional.of("default"), List.of()));
  }

  @Test
  void sslTrueMeansHttpsAndTheDefaultPortIs8443() {
    assertThat(JdbcUrl.parse("jdbc:clickhouse://abc.clickhouse.cloud/db?ssl=true&sslmode=NONE"))
        .isEqualTo(
            new JdbcUrl(
                URI.create("https://abc.clickhouse.cloud:8443"),
                Optional.of("db"),
                List.of("sslmode")));
  }

  @Test
  void theProtocolFormAndTheShortPrefixAreRead() {
    assertThat(JdbcUrl.parse("jdbc:clickhouse:https://h:443").endpoint())
        .isEqualTo(URI.create("https://h:443"));
    assertThat(JdbcUrl.parse("jdbc:ch://h").endpoint()).isEqualTo(URI.create("http://h:8123"));
    assertThat(JdbcUrl.parse("jdbc:ch://h").database()).isEmpty();
  }

  @Test
  void credentialsAreRefused() {
    assertThatThrownBy(() -> JdbcUrl.parse("jdbc:clickhouse://u:secret@h:8123/db"))
        .hasMessageNotContaining("secret")
        .hasMessageStartingWith("must not hold credentials");
  }

  @Test
  void anotherSchemeIsRefused() {
    assertThatThrownBy(() -> JdbcUrl.parse("jdbc:mysql://h/db"))
        .hasMessage("expected jdbc:clickhouse://host:port/database");
  }
}
