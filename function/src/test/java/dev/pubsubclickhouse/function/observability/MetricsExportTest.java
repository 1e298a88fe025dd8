package dev.pubsubclickhouse.function.observability;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.registry.otlp.OtlpMeterRegistry;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The metrics pushed over OTLP/HTTP as Google's Telemetry API receives them: the same meters as
 * /metrics, cumulative, with the resource attributes and each push's headers. A MockWebServer
 * stands in for telemetry.googleapis.com, which cannot be reached here.
 */
class MetricsExportTest {
  private final MockWebServer receiver = new MockWebServer();

  @AfterEach
  void stop() throws Exception {
    receiver.shutdown();
  }

  @Test
  void theMetersArePushedCumulativeWithTheirNamesResourceAndHeaders() throws Exception {
    for (int i = 0; i < 10; i++) {
      receiver.enqueue(new MockResponse().setResponseCode(200));
    }
    receiver.start();
    MetricsExport export =
        new MetricsExport(
            receiver.url("/v1/metrics").uri(),
            Duration.ofSeconds(1),
            MetricsExport.resourceAttributes(
                Map.of("cloud.region", "europe-west1"), Optional.of("my-project"), "instance-1"));
    OtlpMeterRegistry registry =
        export.registry(
            () -> Map.of("Authorization", "Bearer token-1", "x-goog-user-project", "my-project"));
    Metrics metrics = new Metrics(List.of(registry));
    metrics.messagesReceived.add(3);
    metrics.insertLatencyMillis.record(7);
    metrics.insertLatencyMillis.record(70);
    metrics.gauge("waiting-requests", "Requests waiting.", () -> 5);
    try {
      ExportMetricsServiceRequest pushed = null;
      RecordedRequest request = null;
      for (int i = 0; i < 5 && !holdsAllOf(pushed); i++) {
        request = receiver.takeRequest(10, TimeUnit.SECONDS);
        assertThat(request).as("a push within 10 s").isNotNull();
        pushed = ExportMetricsServiceRequest.parseFrom(request.getBody().readByteArray());
      }
      assertThat(request.getPath()).isEqualTo("/v1/metrics");
      assertThat(request.getHeader("Content-Type")).isEqualTo("application/x-protobuf");
      assertThat(request.getHeader("Authorization")).isEqualTo("Bearer token-1");
      assertThat(request.getHeader("x-goog-user-project")).isEqualTo("my-project");

      Map<String, String> resource =
          pushed.getResourceMetrics(0).getResource().getAttributesList().stream()
              .collect(Collectors.toMap(KeyValue::getKey, kv -> kv.getValue().getStringValue()));
      assertThat(resource)
          .containsEntry("service.name", "pubsub-clickhouse-push")
          .containsEntry("service.instance.id", "instance-1")
          .containsEntry("gcp.project_id", "my-project")
          .containsEntry("cloud.region", "europe-west1");

      Map<String, Metric> byName = metrics(pushed);
      Metric received = byName.get("pubsub_clickhouse_messages_received_total");
      assertThat(received.getSum().getIsMonotonic()).isTrue();
      assertThat(received.getSum().getAggregationTemporality())
          .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
      assertThat(received.getSum().getDataPoints(0).getAsDouble()).isEqualTo(3.0);
      assertThat(received.getDescription())
          .isEqualTo("Push requests with a message. (messages-received)");

      Metric latency = byName.get("pubsub_clickhouse_insert_latency_ms");
      var point = latency.getHistogram().getDataPoints(0);
      assertThat(point.getCount()).isEqualTo(2);
      assertThat(point.getSum()).isEqualTo(77.0);
      assertThat(point.getExplicitBoundsList())
          .containsExactly(
              1.0, 2.0, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0, 5000.0,
              10000.0);

      assertThat(byName.get("pubsub_clickhouse_waiting_requests").getGauge().getDataPoints(0))
          .satisfies(gauge -> assertThat(gauge.getAsDouble()).isEqualTo(5.0));
      // Cloud Monitoring's Telemetry API refuses names outside [a-zA-Z][a-zA-Z0-9_:./]*.
      assertThat(byName.keySet()).allMatch(name -> name.matches("[a-zA-Z][a-zA-Z0-9_:./]*"));
      // Each meter under the name /metrics shows (a histogram's without its _bucket/_sum/_count).
      Set<String> prometheusNames =
          metrics
              .prometheusText()
              .lines()
              .filter(line -> line.startsWith("# TYPE "))
              .map(line -> line.split(" ")[2])
              .filter(name -> !name.endsWith("_max"))
              .collect(Collectors.toSet());
      assertThat(byName.keySet()).containsAll(prometheusNames);
    } finally {
      registry.close();
    }
  }

  @Test
  void onlyAGoogleEndpointIsCalledWithGoogleCredentials() {
    assertThat(export("https://telemetry.googleapis.com/v1/metrics").toGoogle()).isTrue();
    assertThat(export("http://127.0.0.1:4318/v1/metrics").toGoogle()).isFalse();
    assertThat(export("https://googleapis.com.example/v1/metrics").toGoogle()).isFalse();
  }

  private static MetricsExport export(String url) {
    return new MetricsExport(URI.create(url), Duration.ofMinutes(1), Map.of());
  }

  private static Map<String, Metric> metrics(ExportMetricsServiceRequest pushed) {
    return pushed.getResourceMetricsList().stream()
        .flatMap(resource -> resource.getScopeMetricsList().stream())
        .flatMap(scope -> scope.getMetricsList().stream())
        .collect(Collectors.toMap(Metric::getName, metric -> metric, (a, b) -> a));
  }

  private static boolean holdsAllOf(ExportMetricsServiceRequest pushed) {
    if (pushed == null) {
      return false;
    }
    Metric received = metrics(pushed).get("pubsub_clickhouse_messages_received_total");
    return received != null && received.getSum().getDataPoints(0).getAsDouble() == 3.0;
  }
}
