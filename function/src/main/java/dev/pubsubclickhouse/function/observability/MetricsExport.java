package dev.pubsubclickhouse.function.observability;

import com.google.auth.oauth2.GoogleCredentials;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.registry.otlp.AggregationTemporality;
import io.micrometer.registry.otlp.CompressionMode;
import io.micrometer.registry.otlp.HistogramFlavor;
import io.micrometer.registry.otlp.OtlpConfig;
import io.micrometer.registry.otlp.OtlpMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The meters pushed over OTLP/HTTP (protobuf) by Micrometer's OTLP registry: to Google's Telemetry
 * API ({@code https://telemetry.googleapis.com/v1/metrics}), which stores them in Cloud Monitoring
 * as Prometheus time series with no sidecar, or to any OTLP receiver. Cumulative counts and
 * explicit-bucket histograms under the names {@code GET /metrics} shows, as Cloud Monitoring's
 * Prometheus mapping reads them.
 *
 * @param endpoint the OTLP/HTTP metrics URL
 * @param interval time between two pushes
 * @param resourceAttributes what the metrics describe (service.name, cloud.region, ...)
 */
public record MetricsExport(
    URI endpoint, Duration interval, Map<String, String> resourceAttributes) {
  private static final String CLOUD_PLATFORM_SCOPE =
      "https://www.googleapis.com/auth/cloud-platform";

  public MetricsExport {
    resourceAttributes = Map.copyOf(resourceAttributes);
  }

  /** A Google API endpoint, called with Google credentials. */
  public boolean toGoogle() {
    String host = endpoint.getHost();
    return host != null && (host.equals("googleapis.com") || host.endsWith(".googleapis.com"));
  }

  /**
   * The registry that pushes every meter it is given; with a Google endpoint, each push carries a
   * fresh access token of the application-default credentials (the service account on Cloud Run).
   *
   * @param project billed for the calls to a Google endpoint ({@code x-goog-user-project}), if set
   * @throws IllegalStateException when a Google endpoint is configured and no credentials are found
   */
  public OtlpMeterRegistry registry(Optional<String> project) {
    return registry(toGoogle() ? googleHeaders(project) : Map::of);
  }

  /** The registry, with each push's headers from {@code headers}. */
  OtlpMeterRegistry registry(Supplier<Map<String, String>> headers) {
    OtlpConfig config =
        new OtlpConfig() {
          @Override
          public String get(String key) {
            return null; // every setting is one of the methods below, none from the environment
          }

          @Override
          public String url() {
            return endpoint.toString();
          }

          @Override
          public Duration step() {
            return interval;
          }

          @Override
          public Map<String, String> resourceAttributes() {
            return resourceAttributes;
          }

          @Override
          public Map<String, String> headers() {
            return headers.get();
          }

          @Override
          public AggregationTemporality aggregationTemporality() {
            return AggregationTemporality.CUMULATIVE;
          }

          @Override
          public CompressionMode compressionMode() {
            return CompressionMode.NONE;
          }

          @Override
          public HistogramFlavor histogramFlavor() {
            return HistogramFlavor.EXPLICIT_BUCKET_HISTOGRAM;
          }
        };
    OtlpMeterRegistry registry = new OtlpMeterRegistry(config, Clock.SYSTEM);
    // The names /metrics shows, so that Cloud Monitoring's Prometheus series keep the names the
    // dashboards and alerts query (a name that already ends in _total gets no second one).
    registry
        .config()
        .namingConvention(
            (name, type, baseUnit) -> type == Meter.Type.COUNTER ? name + "_total" : name);
    return registry;
  }

  private Supplier<Map<String, String>> googleHeaders(Optional<String> project) {
    GoogleCredentials credentials;
    try {
      credentials = GoogleCredentials.getApplicationDefault().createScoped(CLOUD_PLATFORM_SCOPE);
    } catch (IOException e) {
      String reason = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
      throw new IllegalStateException(
          "metrics export to " + endpoint.getHost() + " needs Google credentials: " + reason, e);
    }
    return () -> {
      Map<String, String> headers = new LinkedHashMap<>();
      try {
        // Refreshes the token when it is near its expiry.
        credentials
            .getRequestMetadata(endpoint)
            .forEach((name, values) -> headers.put(name, String.join(",", values)));
      } catch (IOException e) {
        throw new UncheckedIOException("no access token for the metrics export", e);
      }
      project.ifPresent(id -> headers.put("x-goog-user-project", id));
      return headers;
    };
  }

  /** The attributes of this process: defaults first, then what the configuration sets. */
  public static Map<String, String> resourceAttributes(
      Map<String, String> configured, Optional<String> project, String instanceId) {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("service.name", "pubsub-clickhouse-push");
    attributes.put("service.instance.id", instanceId);
    project.ifPresent(id -> attributes.put("gcp.project_id", id));
    attributes.putAll(configured);
    return attributes;
  }
}
