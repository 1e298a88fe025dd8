package dev.pubsubclickhouse.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Secret Manager's REST API, served by MockWebServer (Google's endpoint cannot be reached here).
 */
class SecretManagerAccessTest {
  private static final String VERSION = "projects/p1/secrets/clickhouse-password/versions/3";
  private MockWebServer secretManager;
  private Map<String, String> environment;

  @BeforeEach
  void start() throws Exception {
    secretManager = new MockWebServer();
    secretManager.start();
    String endpoint = "http://127.0.0.1:" + secretManager.getPort();
    environment = Map.of("SECRET_MANAGER_ENDPOINT", endpoint);
  }

  @AfterEach
  void stop() throws Exception {
    secretManager.shutdown();
  }

  @Test
  void thePasswordComesFromTheSecretVersion() throws Exception {
    String payload =
        Base64.getEncoder().encodeToString("s3cr3t-value".getBytes(StandardCharsets.UTF_8));
    secretManager.enqueue(
        new MockResponse()
            .setHeader("Content-Type", "application/json")
            .setBody("{\"name\":\"" + VERSION + "\",\"payload\":{\"data\":\"" + payload + "\"}}"));

    ClickHouseConfig config =
        ClickHouseConfig.read(
            new ConfigReader(
                Map.of(
                    "CLICKHOUSE_URL", "http://localhost:8123",
                    "CLICKHOUSE_TABLE", "logs",
                    "CLICKHOUSE_PASSWORD_SECRET", VERSION)),
            new SecretManagerAccess(environment));

    assertThat(config.password().reveal()).isEqualTo("s3cr3t-value");
    assertThat(config.password().toString()).isEqualTo("(secret)");
    assertThat(config.toString()).doesNotContain("s3cr3t-value");
    RecordedRequest request = secretManager.takeRequest();
    assertThat(request.getRequestUrl().encodedPath()).isEqualTo("/v1/" + VERSION + ":access");
    assertThat(request.getHeader("Authorization")).isNull();
  }

  @Test
  void aFailedAccessNamesTheResourceAndNothingSecret() {
    secretManager.enqueue(
        new MockResponse()
            .setResponseCode(403)
            .setHeader("Content-Type", "application/json")
            .setBody(
                "{\"error\":{\"code\":403,\"message\":\"Permission denied on secret\",\"status\":\"PERMISSION_DENIED\"}}"));

    assertThatThrownBy(
            () ->
                new SecretManagerAccess(environment)
                    .access(ClickHouseParameters.PASSWORD_SECRET, VERSION))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(
            "CLICKHOUSE_PASSWORD_SECRET: cannot read secret "
                + VERSION
                + ": PermissionDeniedException")
        .hasMessageNotContaining("\n");
  }

  @Test
  void aMalformedResourceNameIsRefusedBeforeAnyRequest() {
    assertThatThrownBy(
            () ->
                new SecretManagerAccess(environment)
                    .access(ClickHouseParameters.PASSWORD_SECRET, "clickhouse-password"))
        .hasMessage(
            "CLICKHOUSE_PASSWORD_SECRET: expected projects/PROJECT/secrets/SECRET/versions/VERSION, got 'clickhouse-password'");
    assertThat(secretManager.getRequestCount()).isZero();
  }

  @Test
  void aPlaintextEndpointElsewhereIsRefusedBeforeAnyRequest() {
    assertThatThrownBy(
            () ->
                new SecretManagerAccess(
                        Map.of("SECRET_MANAGER_ENDPOINT", "http://secrets.example:9000"))
                    .access(ClickHouseParameters.PASSWORD_SECRET, VERSION))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "SECRET_MANAGER_ENDPOINT: must be https:// (http:// only to this machine: 127.0.0.0/8,"
                + " ::1, localhost), got 'http://secrets.example:9000'");
  }
}
