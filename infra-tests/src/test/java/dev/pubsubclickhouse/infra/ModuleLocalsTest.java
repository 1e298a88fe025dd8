package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.Expr;
import dev.pubsubclickhouse.infra.hcl.HclExpression;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The module's locals and the VM's template arguments, evaluated by Terraform for the ways the
 * module is used: an existing ClickHouse, the VM with and without TLS, with and without the
 * backfill job. Resources stand in as variables (LocalsEvaluation).
 */
class ModuleLocalsTest {
  @TempDir Path dir;
  private LocalsEvaluation evaluation;

  @BeforeEach
  void writeTheRootModule() {
    HclExpression startupScript =
        TerraformFiles.MODULE
            .resource("google_compute_instance", "clickhouse")
            .expr("metadata")
            .objectEntry("startup-script")
            .orElseThrow();
    Expr templateArguments = ((Expr.FunctionCall) startupScript.expr()).arguments().get(1);
    evaluation =
        new LocalsEvaluation(
            dir,
            TerraformFiles.MODULE,
            Map.of(
                "startup_arguments", startupScript.part(templateArguments).text(),
                "service", "local.service_env",
                "backfill", "local.backfill_env",
                "budget", "local.outage_budget_seconds",
                "backlog_alert", "local.oldest_unacked_alert_seconds",
                "alerts",
                    TerraformFiles.MODULE
                        .resource("google_monitoring_alert_policy", "pipeline")
                        .expr("for_each")
                        .text(),
                "dashboard_tiles",
                    "jsondecode("
                        + TerraformFiles.MODULE
                            .resource("google_monitoring_dashboard", "pipeline")
                            .expr("dashboard_json")
                            .text()
                        + ").mosaicLayout.tiles"));
  }

  @Test
  void anExistingClickHouseIsTheUrlGivenWithoutATrailingSlash() {
    assertThat(
            evaluate("local.clickhouse_url", Map.of("clickhouse_url", "https://ch.example:8443")))
        .isEqualTo("\"https://ch.example:8443\"");
    // The validation admits a trailing slash; paths built on the URL must not start with "//".
    assertThat(
            evaluate("local.clickhouse_url", Map.of("clickhouse_url", "https://ch.example:8443/")))
        .isEqualTo("\"https://ch.example:8443\"");
    assertThat(
            evaluate(
                "local.service_env[\"CLICKHOUSE_URL\"]",
                Map.of("clickhouse_url", "https://ch.example:8443/")))
        .isEqualTo("\"https://ch.example:8443\"");
  }

  @Test
  void theVmIsReachedByHttpsOn8443AndTheServiceTrustsItsCertificate() {
    Map<String, String> vm = new LinkedHashMap<>(Map.of("create_clickhouse_vm", "true"));
    vm.put("clickhouse_vm_tls_certificate_secret", "cert");
    vm.put("clickhouse_vm_tls_private_key_secret", "key");

    assertThat(evaluate("local.clickhouse_url", vm)).isEqualTo("\"https://10.0.0.5:8443\"");
    assertThat(evaluate("local.service[\"CLICKHOUSE_CA_CERT\"]", vm))
        .isEqualTo("\"/etc/clickhouse-ca/ca.pem\"");
    assertThat(evaluate("local.startup_arguments.tls_cert_secret", vm)).isEqualTo("\"cert\"");
    assertThat(evaluate("local.startup_arguments.tls_key_secret", vm)).isEqualTo("\"key\"");
    assertThat(evaluate("local.startup_arguments.clickhouse_version", vm)).isEqualTo("\"25.8.*\"");
  }

  @Test
  void theVmBacksUpTheServicesDatabases() {
    Map<String, String> vm = Map.of("create_clickhouse_vm", "true");

    assertThat(evaluate("local.startup_arguments.backup_databases", vm)).isEqualTo("\"default\"");
    assertThat(
            evaluate(
                "local.startup_arguments.backup_databases",
                Map.of(
                    "create_clickhouse_vm", "true",
                    "clickhouse_database", "realtime",
                    "clickhouse_dead_letter_table", "errors.logs_dead_letter")))
        .isEqualTo("\"realtime errors\"");
  }

  @Test
  void theServiceGetsItsAnswerTimeoutAndTheJobItsDeadLetterDataset() {
    Map<String, String> existing = Map.of("clickhouse_url", "https://ch.example:8443");

    assertThat(evaluate("local.service[\"ANSWER_TIMEOUT_MS\"]", existing)).isEqualTo("\"55000\"");
    assertThat(evaluate("local.backfill[\"OUTPUT_DEADLETTER_DATASET\"]", existing))
        .isEqualTo("\"the-project:pubsub_clickhouse_backfill_dead_letters\"");
    Map<String, String> noJob = new LinkedHashMap<>(existing);
    noJob.put("create_backfill_job", "false");
    assertThat(evaluate("lookup(local.backfill, \"OUTPUT_DEADLETTER_DATASET\", \"unset\")", noJob))
        .isEqualTo("\"unset\"");
  }

  @Test
  void eachAlertPolicyHasItsThresholdsAndTheBackfillsComesOnlyWithTheJob() {
    Map<String, String> existing = Map.of("clickhouse_url", "https://ch.example:8443");
    String summary =
        "join(\" | \", [for name, p in local.alerts : \"${name} ${p.severity}: ${join(\"; \", ["
            + "for c in p.conditions : join(\" \", [c.threshold_value, c.duration,"
            + " c.aggregations.alignment_period, c.aggregations.per_series_aligner,"
            + " coalesce(c.aggregations.cross_series_reducer, \"-\"),"
            + " lookup(c, \"denominator_filter\", null) == null ? \"-\" : \"ratio\"])])}\"])";

    assertThat(evaluate(summary, existing))
        .isEqualTo(
            "\"backfill_failed ERROR: 0 0s 300s ALIGN_DELTA REDUCE_SUM -"
                + " | dead_letter_backlog ERROR: 1000 300s 60s ALIGN_MAX - -;"
                + " 259200 300s 60s ALIGN_MAX - -"
                + " | dead_letters WARNING: 0 0s 300s ALIGN_DELTA REDUCE_SUM -;"
                + " 0 0s 300s ALIGN_DELTA REDUCE_SUM -"
                + " | oldest_unacked_age ERROR: 600 300s 60s ALIGN_MAX - -"
                + " | service_5xx ERROR: 0.05 300s 60s ALIGN_RATE REDUCE_SUM ratio"
                + " | service_overload WARNING: 0.1 600s 60s ALIGN_RATE REDUCE_SUM ratio\"");
    assertThat(evaluate("local.alerts.backfill_failed.conditions[0].filter", existing))
        .contains("resource.labels.job_name = \\\"the-job\\\"");

    // Without the job its policy is left out before anything reads the job's (absent) name.
    Map<String, String> noJob = new LinkedHashMap<>(existing);
    noJob.put("create_backfill_job", "false");
    noJob.put("stub_google_cloud_run_v2_job_backfill", "[]");
    assertThat(evaluate("join(\",\", keys(local.alerts))", noJob))
        .isEqualTo(
            "\"dead_letter_backlog,dead_letters,oldest_unacked_age,service_5xx,service_overload\"");
    Map<String, String> noMonitoring = new LinkedHashMap<>(existing);
    noMonitoring.put("create_monitoring", "false");
    assertThat(evaluate("length(local.alerts)", noMonitoring)).isEqualTo("0");
  }

  @Test
  void theDashboardPlacesItsEightChartsTwoARowWithoutOverlap() {
    Map<String, String> existing = Map.of("clickhouse_url", "https://ch.example:8443");

    assertThat(
            evaluate(
                "join(\" \", [for t in local.dashboard_tiles :"
                    + " \"${t.xPos},${t.yPos},${t.width}x${t.height}\"])",
                existing))
        .isEqualTo("\"0,0,6x4 6,0,6x4 0,4,6x4 6,4,6x4 0,8,6x4 6,8,6x4 0,12,6x4 6,12,6x4\"");
    assertThat(evaluate("local.dashboard_tiles[7].widget.title", existing))
        .isEqualTo("\"Cloud Run requests by response class (/ s) and instances\"");
  }

  /**
   * Pub/Sub waits before each redelivery, doubling from minimum_backoff up to maximum_backoff; the
   * sum of the waits between max_delivery_attempts attempts is how long a ClickHouse outage the
   * subscription rides out while the service answers 503 at once.
   */
  @Test
  void theOutageBudgetIsTheSumOfTheRetryPolicysWaitsAndTheBacklogAlertComesWellBefore() {
    Map<String, String> defaults = Map.of("clickhouse_url", "https://ch.example:8443");
    // 10 + 20 + 40 + 80 + 160 + 320, then 13 waits of 600 s: 19 waits between 20 attempts.
    assertThat(evaluate("local.budget", defaults)).isEqualTo("8430");
    assertThat(evaluate("local.backlog_alert", defaults)).isEqualTo("600");

    Map<String, String> aggressive = new LinkedHashMap<>(defaults);
    aggressive.put("minimum_backoff_seconds", "1");
    aggressive.put("maximum_backoff_seconds", "2");
    aggressive.put("max_delivery_attempts", "5");
    // 1 + 2 + 2 + 2.
    assertThat(evaluate("local.budget", aggressive)).isEqualTo("7");

    Map<String, String> shorter = new LinkedHashMap<>(defaults);
    shorter.put("maximum_backoff_seconds", "60");
    shorter.put("max_delivery_attempts", "10");
    // 10 + 20 + 40, then 6 waits of 60 s; the alert at a quarter of that, below the 600 s given.
    assertThat(evaluate("local.budget", shorter)).isEqualTo("430");
    assertThat(evaluate("local.backlog_alert", shorter)).isEqualTo("107");
  }

  private String evaluate(String expression, Map<String, String> variables) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("project_id", "the-project");
    all.put("service_image", "image");
    all.put("clickhouse_table", "logs");
    all.put("stub_google_compute_address_clickhouse", "[{address=\"10.0.0.5\"}]");
    all.put("stub_google_pubsub_topic_dead_letter", "{id=\"projects/p/topics/dl\", name=\"dl\"}");
    all.put("stub_google_pubsub_subscription_push", "{name=\"push\"}");
    all.put("stub_google_pubsub_topic_ingest", "{name=\"ingest\"}");
    all.put("stub_google_pubsub_subscription_dead_letter", "{name=\"dl-pull\"}");
    all.put("stub_google_cloud_run_v2_service_ingest", "{name=\"ingest\"}");
    all.put("stub_google_cloud_run_v2_job_backfill", "[{name=\"the-job\"}]");
    all.put("stub_google_service_account_push", "{email=\"push@p.iam.gserviceaccount.com\"}");
    all.put(
        "stub_google_bigquery_dataset_backfill_dead_letters",
        "[{dataset_id=\"pubsub_clickhouse_backfill_dead_letters\"}]");
    all.put("stub_google_secret_manager_secret_clickhouse_password", "{secret_id=\"password\"}");
    all.put("stub_google_storage_bucket_clickhouse_backups", "[{name=\"backups\"}]");
    all.put("stub_data_google_project_this", "{number=\"123\"}");
    all.put("stub_data_google_compute_subnetwork_egress", "[{ip_cidr_range=\"10.8.0.0/26\"}]");
    all.putAll(variables);
    return evaluation.evaluate(expression, all);
  }
}
