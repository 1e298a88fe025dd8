package dev.pubsubclickhouse.core.insert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.SelfSignedCertificate;
import dev.pubsubclickhouse.testing.TestDatabase;
import dev.pubsubclickhouse.testing.TlsTerminatingProxy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The INSERT's own connection over TLS: the configured CA trusted, the host name checked. */
@ClickHouseTest
class ClickHouseHttpTlsIT {
  private final TestDatabase database;
  @TempDir Path directory;

  ClickHouseHttpTlsIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeEach
  void table() {
    database.execute(
        "CREATE TABLE IF NOT EXISTS tls_rows (s String) ENGINE = MergeTree ORDER BY s");
    database.execute("TRUNCATE TABLE tls_rows");
  }

  private ClickHouseHttp http(String url, Path caCertificate) {
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", url);
    env.put("CLICKHOUSE_USER", database.server().user());
    env.put("CLICKHOUSE_PASSWORD", database.server().password());
    env.put("CLICKHOUSE_DATABASE", database.name());
    env.put("CLICKHOUSE_TABLE", "t");
    if (caCertificate != null) {
      env.put("CLICKHOUSE_CA_CERT", caCertificate.toString());
    }
    return ClickHouseHttp.open(
        ClickHouseConfig.read(new ConfigReader(env), new SecretManagerAccess(Map.of())), "tls-it");
  }

  private static ClickHouseHttp.Summary insert(ClickHouseHttp http, String database, String text)
      throws Exception {
    byte[] row = (text + "\n").getBytes(StandardCharsets.UTF_8);
    return http.post(
        "INSERT INTO tls_rows FORMAT TSV",
        Map.of("database", database),
        ClickHouseHttp.data(row.length, out -> out.write(row)),
        Duration.ofSeconds(10));
  }

  @Test
  void withTheCaTrustedTheRowsTravelOverTlsOnOneConnection() throws Exception {
    SelfSignedCertificate certificate = SelfSignedCertificate.forLoopback(directory);
    try (TlsTerminatingProxy tls =
        TlsTerminatingProxy.start(certificate, database.server().url())) {
      ClickHouseHttp http = http(tls.url(), certificate.certificatePem());
      assertThat(insert(http, database.name(), "one")).isEqualTo(new ClickHouseHttp.Summary(1));
      assertThat(insert(http, database.name(), "two")).isEqualTo(new ClickHouseHttp.Summary(1));
      assertThat(tls.handshakes()).as("the connection is kept").isEqualTo(1);
    }
    assertThat(database.query("SELECT groupArray(s) FROM (SELECT s FROM tls_rows ORDER BY s)"))
        .isEqualTo("['one','two']");
  }

  @Test
  void aCertificateForAnotherHostIsRefusedEvenWhenItsCaIsTrusted() throws Exception {
    SelfSignedCertificate elsewhere =
        SelfSignedCertificate.create(directory, "clickhouse.example", "dns:clickhouse.example");
    try (TlsTerminatingProxy tls = TlsTerminatingProxy.start(elsewhere, database.server().url())) {
      ClickHouseHttp http = http(tls.url(), elsewhere.certificatePem());
      assertThatThrownBy(() -> insert(http, database.name(), "refused"))
          .isInstanceOf(IOException.class);
    }
    assertThat(database.query("SELECT count() FROM tls_rows")).isEqualTo("0");
  }

  @Test
  void withoutTheCaTheJvmsTrustStoreDoesNotTrustTheServer() throws Exception {
    SelfSignedCertificate certificate = SelfSignedCertificate.forLoopback(directory);
    try (TlsTerminatingProxy tls =
        TlsTerminatingProxy.start(certificate, database.server().url())) {
      ClickHouseHttp http = http(tls.url(), null);
      assertThatThrownBy(() -> insert(http, database.name(), "untrusted"))
          .isInstanceOf(IOException.class);
    }
    assertThat(database.query("SELECT count() FROM tls_rows")).isEqualTo("0");
  }
}
