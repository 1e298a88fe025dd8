package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.SelfSignedCertificate;
import dev.pubsubclickhouse.testing.TestDatabase;
import dev.pubsubclickhouse.testing.TlsTerminatingProxy;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS to ClickHouse: an https:// CLICKHOUSE_URL served with a self-signed certificate made at test
 * time (a TLS-terminating proxy in front of the real server, which serves plain HTTP here). The
 * service trusts exactly the CA that CLICKHOUSE_CA_CERT names and checks the host name; for
 * anything else it serves unready, /healthz naming why, and sends nothing.
 */
@ClickHouseTest
class ClickHouseTlsIT {
  private final TestDatabase database;
  @TempDir Path directory;

  ClickHouseTlsIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeEach
  void table() {
    database.execute(
        "CREATE TABLE IF NOT EXISTS tls_logs (message String, _pubsub_message_id String)"
            + " ENGINE = MergeTree ORDER BY message");
  }

  private Map<String, String> env(String url, Path caCertificate) {
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", url);
    env.put("CLICKHOUSE_USER", database.server().user());
    env.put("CLICKHOUSE_PASSWORD", database.server().password());
    env.put("CLICKHOUSE_DATABASE", database.name());
    env.put("CLICKHOUSE_TABLE", "tls_logs");
    env.put("SUMMARY_INTERVAL_SECONDS", "3600");
    if (caCertificate != null) {
      env.put("CLICKHOUSE_CA_CERT", caCertificate.toString());
    }
    return env;
  }

  @Test
  void withTheServersCaTrustedRowsTravelOverTls() throws Exception {
    SelfSignedCertificate certificate = SelfSignedCertificate.forLoopback(directory);
    try (TlsTerminatingProxy tls = TlsTerminatingProxy.start(certificate, database.server().url());
        RunningService service =
            RunningService.start(env(tls.url(), certificate.certificatePem()))) {
      assertThat(service.push("tls-1", "{\"message\":\"over tls\"}")).isEqualTo(204);
      assertThat(service.get("/healthz").statusCode()).isEqualTo(200);
      assertThat(tls.handshakes()).isPositive();
    }
    assertThat(database.query("SELECT message FROM tls_logs WHERE _pubsub_message_id = 'tls-1'"))
        .isEqualTo("over tls");
  }

  @Test
  void withoutTheCaTheServerIsNotTrustedAndTheServiceStaysUnready() throws Exception {
    SelfSignedCertificate certificate = SelfSignedCertificate.forLoopback(directory);
    try (TlsTerminatingProxy tls = TlsTerminatingProxy.start(certificate, database.server().url());
        RunningService service = RunningService.startUnready(env(tls.url(), null))) {
      HttpResponse<String> health = service.healthOnceTried();
      assertThat(health.statusCode()).isEqualTo(503);
      assertThat(health.body())
          .startsWith("cannot use ClickHouse at " + tls.url() + ": ")
          .contains("its TLS certificate is not trusted");
      assertThat(service.push("untrusted", "{\"message\":\"not sent\"}")).isEqualTo(503);
      assertThat(tls.handshakes()).isZero();
    }
    assertThat(
            database.query("SELECT count() FROM tls_logs WHERE _pubsub_message_id = 'untrusted'"))
        .isEqualTo("0");
  }

  @Test
  void anotherCaIsNotTrusted() throws Exception {
    SelfSignedCertificate served = SelfSignedCertificate.forLoopback(directory.resolve("served"));
    SelfSignedCertificate other = SelfSignedCertificate.forLoopback(directory.resolve("other"));
    try (TlsTerminatingProxy tls = TlsTerminatingProxy.start(served, database.server().url());
        RunningService service =
            RunningService.startUnready(env(tls.url(), other.certificatePem()))) {
      HttpResponse<String> health = service.healthOnceTried();
      assertThat(health.statusCode()).isEqualTo(503);
      assertThat(health.body()).startsWith("cannot use ClickHouse at " + tls.url() + ": ");
      assertThat(tls.handshakes()).isZero();
    }
  }

  @Test
  void aCertificateForAnotherHostIsRefusedEvenWhenItsCaIsTrusted() throws Exception {
    SelfSignedCertificate elsewhere =
        SelfSignedCertificate.create(directory, "clickhouse.example", "dns:clickhouse.example");
    try (TlsTerminatingProxy tls = TlsTerminatingProxy.start(elsewhere, database.server().url());
        RunningService service =
            RunningService.startUnready(env(tls.url(), elsewhere.certificatePem()))) {
      HttpResponse<String> health = service.healthOnceTried();
      assertThat(health.statusCode()).isEqualTo(503);
      assertThat(health.body()).startsWith("cannot use ClickHouse at " + tls.url() + ": ");
    }
  }

  @Test
  void theCaSettingIsCheckedAtStart() {
    assertThatThrownBy(
            () -> PushConfig.read(env(database.server().url(), directory.resolve("ca.pem"))))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("CLICKHOUSE_CA_CERT: applies only to an https:// CLICKHOUSE_URL");
    assertThatThrownBy(
            () -> PushConfig.read(env("https://127.0.0.1:8443", directory.resolve("absent.pem"))))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("CLICKHOUSE_CA_CERT: no readable file at ");
  }
}
