package dev.pubsubclickhouse.function.observability;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;

/**
 * Where {@link Metrics} registers its meters: Prometheus's registry for {@code GET /metrics} and
 * any export registry, joined in one composite. A superclass so that they are complete before
 * Metrics' fields, which register their meters as they are initialized (a registry added to a
 * composite that already has meters would miss nothing here, but Micrometer warns about it).
 */
abstract class MetricRegistries {
  final PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final CompositeMeterRegistry registry = new CompositeMeterRegistry();
  private final List<MeterRegistry> exports;

  MetricRegistries(List<MeterRegistry> exports) {
    this.exports = List.copyOf(exports);
    registry.add(prometheus);
    exports.forEach(registry::add);
  }

  /** Stops the exports; a push registry sends what it holds one last time. */
  public void closeExports() {
    exports.forEach(MeterRegistry::close);
  }
}
