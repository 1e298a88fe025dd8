package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.Expr;
import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The module's monitoring.tf: an alert for each way the pipeline fails, on built-in metrics. The
 * policies are entries of local.alert_policies (local.backfill_alert_policies for the backfill's),
 * all made by the one resource google_monitoring_alert_policy.pipeline.
 */
class MonitoringTest {
  private static final TerraformConfig TF = TerraformFiles.MODULE;
  private static final HclBlock POLICIES =
      TF.resource("google_monitoring_alert_policy", "pipeline");

  @Test
  void aFailedBackfillExecutionAlerts() {
    HclExpression policy = policy("backfill_failed");

    assertThat(filters(policy))
        .containsExactly(
            "resource.type = \"cloud_run_job\" AND resource.labels.job_name = \"${google_cloud_run_v2_job.backfill[0].name}\""
                + " AND metric.type = \"run.googleapis.com/job/completed_execution_count\""
                + " AND metric.labels.result = \"failed\"");
    assertThat(threshold(policy, 0).literal().orElseThrow().value()).isEqualTo("0");
    assertThat(switches("backfill_failed"))
        .containsExactly("var.create_monitoring", "var.create_backfill_job");
  }

  @Test
  void theBacklogAlertFiresAtAFractionOfTheOutageBudgetAtTheLatest() {
    HclExpression policy = policy("oldest_unacked_age");

    assertThat(threshold(policy, 0).references())
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
    HclExpression condition = conditions(policy("service_overload")).get(0);

    assertThat(entry(condition, "filter").text())
        .contains("run.googleapis.com/request_count")
        .contains("metric.labels.response_code = \\\"429\\\"");
    assertThat(entry(condition, "denominator_filter").text())
        .contains("run.googleapis.com/request_count")
        .doesNotContain("response_code");
    assertThat(entry(condition, "threshold_value").references())
        .containsExactly("var.alert_429_ratio");
  }

  @Test
  void deadLettersPilingUpOrGrowingOldAlertBeforeRetentionDropsThem() {
    HclExpression policy = policy("dead_letter_backlog");

    assertThat(filters(policy))
        .containsExactly(
            "${local.dead_letter_sub_filter} AND metric.type = \"pubsub.googleapis.com/subscription/num_undelivered_messages\"",
            "${local.dead_letter_sub_filter} AND metric.type = \"pubsub.googleapis.com/subscription/oldest_unacked_message_age\"");
    assertThat(TF.local("dead_letter_sub_filter").references())
        .containsExactly("google_pubsub_subscription.dead_letter.name");
    assertThat(threshold(policy, 1).references())
        .containsExactly("var.alert_dead_letter_age_seconds");
    assertThat(POLICIES.block("lifecycle").block("precondition").expr("condition").text())
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
    assertThat(TF.resources("google_monitoring_alert_policy")).containsExactly(POLICIES);
    assertThat(policyNames())
        .containsExactlyInAnyOrder(
            "oldest_unacked_age",
            "dead_letters",
            "dead_letter_backlog",
            "service_5xx",
            "service_overload",
            "backfill_failed");
    assertThat(POLICIES.expr("notification_channels").references())
        .containsExactly("var.notification_channels");
    for (String name : policyNames()) {
      assertThat(filters(policy(name)))
          .allSatisfy(f -> assertThat(f).doesNotContain("prometheus.googleapis.com"));
    }
  }

  @Test
  void theResourcePassesEachValueOfAPolicyToTheArgumentOfItsName() {
    // The other tests read thresholds, filters and durations from the locals: they hold for the
    // deployed policies only when the resource hands each value to the argument of its name.
    assertThat(POLICIES.expr("display_name").references())
        .containsExactly("each.value.display_name");
    assertThat(POLICIES.expr("severity").references()).containsExactly("each.value.severity");
    assertThat(POLICIES.block("documentation").expr("content").references())
        .containsExactly("each.value.documentation");
    assertThat(POLICIES.expr("combiner").literal()).contains(Literal.string("OR"));

    HclBlock conditions = POLICIES.dynamic("conditions");
    assertThat(conditions.expr("for_each").references()).containsExactly("each.value.conditions");
    HclBlock content = conditions.block("content");
    assertThat(content.expr("display_name").references())
        .containsExactly("conditions.value.display_name");
    HclBlock threshold = content.block("condition_threshold");
    assertThat(threshold.attributes().keySet())
        .containsExactlyInAnyOrder(
            "filter", "denominator_filter", "comparison", "threshold_value", "duration");
    assertTakesItsNamesake(threshold, "conditions.value.", "filter", "threshold_value", "duration");
    assertThat(threshold.expr("denominator_filter").text())
        .isEqualTo("lookup(conditions.value, \"denominator_filter\", null)");
    assertThat(threshold.expr("comparison").literal()).contains(Literal.string("COMPARISON_GT"));
    assertThat(threshold.block("trigger").expr("count").literal()).contains(Literal.number("1"));
    assertTakesItsNamesake(
        threshold.block("aggregations"),
        "conditions.value.aggregations.",
        "alignment_period",
        "per_series_aligner",
        "cross_series_reducer");
    HclBlock denominator = threshold.dynamic("denominator_aggregations");
    assertThat(denominator.expr("for_each").text())
        .isEqualTo(
            "contains(keys(conditions.value), \"denominator_filter\")"
                + " ? [conditions.value.aggregations] : []");
    assertTakesItsNamesake(
        denominator.block("content"),
        "denominator_aggregations.value.",
        "alignment_period",
        "per_series_aligner",
        "cross_series_reducer");
  }

  /** Each of {@code arguments} of the block is {@code prefix} and its own name. */
  private static void assertTakesItsNamesake(HclBlock block, String prefix, String... arguments) {
    for (String argument : arguments) {
      assertThat(block.expr(argument).text()).as(argument).isEqualTo(prefix + argument);
    }
  }

  @Test
  void anExistingDeploymentKeepsEachPolicyAtItsNewAddress() {
    // Each policy was a resource of its own, counted by create_monitoring: without a moved block
    // the next apply would delete it and create it again.
    List<String> moves =
        TF.blocks("moved").stream()
            .map(m -> m.expr("from").text() + " -> " + m.expr("to").text())
            .collect(Collectors.toList());

    assertThat(moves)
        .containsExactlyInAnyOrderElementsOf(
            policyNames().stream()
                .map(
                    name ->
                        "google_monitoring_alert_policy."
                            + name
                            + "[0] -> google_monitoring_alert_policy.pipeline[\""
                            + name
                            + "\"]")
                .collect(Collectors.toList()));
  }

  /** The policies the resource makes: the keys of both locals. */
  private static List<String> policyNames() {
    List<String> names = new ArrayList<>();
    for (Expr.ObjectCons policies : List.of(pipelinePolicies(), backfillPolicies())) {
      for (Expr.ObjectItem item : policies.items()) {
        names.add(((Expr.Literal) item.key()).value());
      }
    }
    return names;
  }

  private static Expr.ObjectCons pipelinePolicies() {
    return (Expr.ObjectCons) TF.local("alert_policies").expr();
  }

  /** The backfill's policies, which exist only when the conditional around them holds. */
  private static Expr.ObjectCons backfillPolicies() {
    return (Expr.ObjectCons) backfillCondition().whenTrue();
  }

  private static Expr.Conditional backfillCondition() {
    return (Expr.Conditional) TF.local("backfill_alert_policies").expr();
  }

  /** The policy's entry in whichever local holds it. */
  private static HclExpression policy(String name) {
    return TF.findLocal("alert_policies")
        .flatMap(local -> local.objectEntry(name))
        .or(() -> TF.local("backfill_alert_policies").objectEntry(name))
        .orElseThrow(() -> new AssertionError("no alert policy " + name));
  }

  /**
   * The variables that decide whether the policy exists: the resource's for_each, and for the
   * backfill's policies the condition of their local.
   */
  private static List<String> switches(String name) {
    List<String> switches =
        POLICIES.expr("for_each").references().stream()
            .filter(r -> r.startsWith("var."))
            .collect(Collectors.toCollection(ArrayList::new));
    HclExpression backfill = TF.local("backfill_alert_policies");
    if (backfill.objectEntry(name).isPresent()) {
      switches.addAll(backfill.part(backfillCondition().condition()).references());
    }
    return switches;
  }

  private static List<HclExpression> conditions(HclExpression policy) {
    HclExpression conditions = entry(policy, "conditions");
    return ((Expr.Tuple) conditions.expr())
        .items().stream().map(conditions::part).collect(Collectors.toList());
  }

  private static HclExpression entry(HclExpression object, String key) {
    return object
        .objectEntry(key)
        .orElseThrow(() -> new AssertionError("no " + key + " in " + object.text()));
  }

  private static HclExpression threshold(HclExpression policy, int index) {
    return entry(conditions(policy).get(index), "threshold_value");
  }

  /** Each condition's filter, with the escaped quotes of the HCL string read back. */
  private static List<String> filters(HclExpression policy) {
    return conditions(policy).stream()
        .map(c -> entry(c, "filter").text())
        .map(t -> t.substring(1, t.length() - 1).replace("\\\"", "\""))
        .collect(Collectors.toList());
  }
}
