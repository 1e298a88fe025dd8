package dev.pubsubclickhouse.function.observability;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** /metrics in Prometheus text under the Dataflow template's names, and the summary's values. */
class MetricsTest {
  @Test
  void countersHistogramsAndGaugesKeepTheirPrometheusNames() {
    Metrics metrics = new Metrics();
    metrics.messagesReceived.add(2);
    metrics.rowsParsedOk.increment();
    metrics.batchRows.record(7);
    metrics.batchRows.record(300);
    metrics.gauge("waiting-requests", "Requests waiting for their batch.", () -> 4);

    String text = metrics.prometheusText();
    assertThat(text)
        .contains(
            "# HELP pubsub_clickhouse_messages_received_total Push requests with a message."
                + " (messages-received)\n")
        .contains("# TYPE pubsub_clickhouse_messages_received_total counter\n")
        .contains("pubsub_clickhouse_messages_received_total 2.0\n")
        .contains("pubsub_clickhouse_rows_parsed_ok_total 1.0\n")
        .contains("# TYPE pubsub_clickhouse_batch_rows histogram\n")
        .contains("pubsub_clickhouse_batch_rows_bucket{le=\"1.0\"} 0\n")
        .contains("pubsub_clickhouse_batch_rows_bucket{le=\"10.0\"} 1\n")
        .contains("pubsub_clickhouse_batch_rows_bucket{le=\"250.0\"} 1\n")
        .contains("pubsub_clickhouse_batch_rows_bucket{le=\"500.0\"} 2\n")
        .contains("pubsub_clickhouse_batch_rows_bucket{le=\"+Inf\"} 2\n")
        .contains("pubsub_clickhouse_batch_rows_count 2\n")
        .contains("pubsub_clickhouse_batch_rows_sum 307.0\n")
        .contains("# TYPE pubsub_clickhouse_waiting_requests gauge\n")
        .contains("pubsub_clickhouse_waiting_requests 4.0\n");

    assertThat(metrics.snapshot())
        .containsEntry("messages-received", 2L)
        .containsEntry("rows-parsed-ok", 1L)
        .containsEntry("batch-rows-count", 2L)
        .containsEntry("waiting-requests", 4L);
  }

  @Test
  void aRequestsPhasesAddUpAsSumsOfNanoseconds() {
    Metrics metrics = new Metrics();
    metrics.requestPhases.record(1_000, 1_400, 2_400, 7_400, 7_500);
    metrics.requestPhases.record(10_000, 10_100, 10_100, 13_100, 13_300);

    assertThat(metrics.prometheusText())
        .contains("pubsub_clickhouse_request_phases_timed_total 2.0\n")
        .contains("pubsub_clickhouse_request_parse_ns_total 500.0\n")
        .contains("pubsub_clickhouse_request_batch_wait_ns_total 1000.0\n")
        .contains("pubsub_clickhouse_request_write_ns_total 8000.0\n")
        .contains("pubsub_clickhouse_request_answer_ns_total 300.0\n");
  }
}
