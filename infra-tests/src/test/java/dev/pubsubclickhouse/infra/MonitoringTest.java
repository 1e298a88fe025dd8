package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module's monitoring.tf: an alert for each way the pipeline fails, on built-in metrics. */
class MonitoringTest {
  private static final TerraformConfig TF = TerraformFiles.MODULE;

  @Test
  void aFailedBackfillExecutionAlerts() {
    HclBlock policy = TF.resource("google_monitoring_alert_policy", "backfill_failed");

    assertThat(filters(policy))
        .containsExactly(
            "resource.type = \"cloud_run_job\" AND resource.labels.job_name = \"${google_cloud_run_v2_job.backfill[0].name}\""
                + " AND metric.type = \"run.googleapis.com/job/completed_execution_count\""
                + " AND metric.labels.result = \"failed\"");
    assertThat(threshold(policy, 0).expr("threshold_value").literal().orElseThrow().value())
        .isEqualTo("0");
    assertThat(policy.expr("count").references())
        .containsExactly("var.create_monitoring", "var.create_backfill_job");
  }

  @Test
  void theBacklogAlertFiresAtAFractionOfTheOutageBudgetAtTheLatest() {
    HclBlock policy = TF.resource("google_monitoring_alert_policy", "oldest_unacked_age");

    assertThat(threshold(policy, 0).expr("threshold_value").references())
        .containsExactly("local.oldest_unacked_alert_seconds");
    assertThat(TF.local("oldest_unacked_alert_seconds").references())
        .containsExactlyInAnyOrder(
            "var.alert_oldest_unacked_age_seconds",
            "local.outage_budget_seconds",
            "var.alert_outage_budget_fraction");
    assertThat(TF.local("outage_budget_seconds").references())
        .filteredOn(reference -> reference.startsWith("var."))
        .containsExactlyInAnyOrder(
            "var.max_delivery_attempts",
            "var.minimum_backoff_seconds",
            "var.maximum_backoff_seconds");
  }

  @Test
  void aSustainedShareOf429AnswersAlerts() {
    HclBlock policy = TF.resource("google_monitoring_alert_policy", "service_overload");
    HclBlock condition = threshold(policy, 0);

    assertThat(condition.expr("filter").text())
        .contains("run.googleapis.com/request_count")
        .contains("metric.labels.response_code = \\\"429\\\"");
    assertThat(condition.expr("denominator_filter").text())
        .contains("run.googleapis.com/request_count")
        .doesNotContain("response_code");
    assertThat(condition.expr("threshold_value").references())
        .containsExactly("var.alert_429_ratio");
  }

  @Test
  void deadLettersPilingUpOrGrowingOldAlertBeforeRetentionDropsThem() {
    HclBlock policy = TF.resource("google_monitoring_alert_policy", "dead_letter_backlog");

    assertThat(filters(policy))
        .containsExactly(
            "${local.dead_letter_sub_filter} AND metric.type = \"pubsub.googleapis.com/subscription/num_undelivered_messages\"",
            "${local.dead_letter_sub_filter} AND metric.type = \"pubsub.googleapis.com/subscription/oldest_unacked_message_age\"");
    assertThat(TF.local("dead_letter_sub_filter").references())
        .containsExactly("google_pubsub_subscription.dead_letter.name");
    assertThat(threshold(policy, 1).expr("threshold_value").references())
        .containsExactly("var.alert_dead_letter_age_seconds");
    assertThat(policy.block("lifecycle").block("precondition").expr("condition").text())
        .isEqualTo("var.alert_dead_letter_age_seconds < var.dead_letter_retention_seconds");
  }

  @Test
  void theApplicationChartsSelectTheServiceBySeriesLabelsItsExporterWrites() {
    // Over OTLP the Telemetry API takes the series' job label from the resource's service.name,
    // which the module sets to the Cloud Run service's name; the sidecar writes service_name.
    String otlpAttributes =
        TF.local("service_env_all").objectEntry("OTEL_RESOURCE_ATTRIBUTES").orElseThrow().text();
    assertThat(otlpAttributes).contains("service.name=${local.service_name}");
    assertThat(TF.resource("google_cloud_run_v2_service", "ingest").expr("name").references())
        .containsExactly("local.service_name");
    String selector = TF.local("prometheus_selector").text();
    assertThat(selector)
        .startsWith("var.enable_managed_prometheus ?")
        .contains("{service_name=\\\"${google_cloud_run_v2_service.ingest.name}\\\"}")
        .contains("{job=\\\"${google_cloud_run_v2_service.ingest.name}\\\"}");
    assertThat(selector.indexOf("service_name=")).isLessThan(selector.indexOf("job="));
    // Both exporters would write every series twice.
    assertThat(
            TF
                .resource("google_cloud_run_v2_service", "ingest")
                .block("lifecycle")
                .blocks("precondition")
                .stream()
                .map(p -> p.expr("condition").text()))
        .contains("!(var.export_metrics_otlp && var.enable_managed_prometheus)");
  }

  @Test
  void everyAlertNotifiesTheConfiguredChannelsAndNeedsNoAgent() {
    List<HclBlock> policies = TF.resources("google_monitoring_alert_policy");

    assertThat(policies)
        .extracting(p -> p.label(1))
        .containsExactlyInAnyOrder(
            "oldest_unacked_age",
            "dead_letters",
            "dead_letter_backlog",
            "service_5xx",
            "service_overload",
            "backfill_failed");
    for (HclBlock policy : policies) {
      assertThat(policy.expr("notification_channels").references())
          .containsExactly("var.notification_channels");
      assertThat(filters(policy))
          .allSatisfy(f -> assertThat(f).doesNotContain("prometheus.googleapis.com"));
    }
  }

  private static HclBlock threshold(HclBlock policy, int index) {
    return policy.blocks("conditions").get(index).block("condition_threshold");
  }

  /** Each condition's filter, with the escaped quotes of the HCL string read back. */
  private static List<String> filters(HclBlock policy) {
    return policy.blocks("conditions").stream()
        .map(c -> c.block("condition_threshold").expr("filter").text())
        .map(t -> t.substring(1, t.length() - 1).replace("\\\"", "\""))
        .collect(Collectors.toList());
  }
}
