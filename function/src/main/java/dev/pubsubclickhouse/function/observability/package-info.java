/** Metrics (Prometheus text at /metrics) and structured JSON log lines. */
package dev.pubsubclickhouse.function.observability;
