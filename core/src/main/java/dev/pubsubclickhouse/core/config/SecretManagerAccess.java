package dev.pubsubclickhouse.core.config;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.cloud.secretmanager.v1.SecretManagerServiceClient;
import com.google.cloud.secretmanager.v1.SecretManagerServiceSettings;
import com.google.cloud.secretmanager.v1.SecretVersionName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Reads secret versions from Secret Manager. With {@code SECRET_MANAGER_ENDPOINT} set (a test
 * server or an emulator, e.g. {@code http://127.0.0.1:9000}) it talks REST to that endpoint,
 * without credentials unless {@code GOOGLE_APPLICATION_CREDENTIALS} is set.
 */
public final class SecretManagerAccess {
  public static final Parameter ENDPOINT =
      Parameter.of(
          "SECRET_MANAGER_ENDPOINT",
          null,
          "Secret Manager REST endpoint override (tests, emulators); default: Google's. A URL must"
              + " be https://, or http:// to this machine.");

  private final Map<String, String> environment;

  public SecretManagerAccess(Map<String, String> environment) {
    this.environment = environment;
  }

  /**
   * The payload of {@code projects/P/secrets/S/versions/V} as UTF-8 text. A failure names the
   * parameter and the resource, never the payload.
   */
  public Secret access(Parameter parameter, String resourceName) {
    checkEndpoint();
    if (!SecretVersionName.isParsableFrom(resourceName)) {
      throw new ConfigurationException(
          parameter,
          "expected projects/PROJECT/secrets/SECRET/versions/VERSION, got '" + resourceName + "'");
    }
    try (SecretManagerServiceClient client = SecretManagerServiceClient.create(settings())) {
      String payload =
          client
              .accessSecretVersion(resourceName)
              .getPayload()
              .getData()
              .toString(StandardCharsets.UTF_8);
      return Secret.of(payload);
    } catch (IOException | RuntimeException e) {
      throw new ConfigurationException(
          parameter,
          "cannot read secret "
              + resourceName
              + ": "
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : " " + firstLine(e.getMessage())));
    }
  }

  /**
   * A URL override must be https://, or http:// to this machine: with
   * GOOGLE_APPLICATION_CREDENTIALS set its requests carry a Google access token, and its answer is
   * the password.
   */
  private void checkEndpoint() {
    String endpoint = environment.get(ENDPOINT.env());
    if (endpoint != null && endpoint.contains("://")) {
      new ConfigReader(Map.of(ENDPOINT.env(), endpoint)).secureUrl(ENDPOINT);
    }
  }

  private SecretManagerServiceSettings settings() throws IOException {
    String endpoint = environment.get(ENDPOINT.env());
    if (endpoint == null || endpoint.isBlank()) {
      return SecretManagerServiceSettings.newBuilder().build();
    }
    SecretManagerServiceSettings.Builder builder =
        SecretManagerServiceSettings.newHttpJsonBuilder().setEndpoint(endpoint);
    if (environment.get("GOOGLE_APPLICATION_CREDENTIALS") == null) {
      builder.setCredentialsProvider(NoCredentialsProvider.create());
    }
    return builder.build();
  }

  private static String firstLine(String message) {
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
