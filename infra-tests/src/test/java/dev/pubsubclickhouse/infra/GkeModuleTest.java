package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.HclFile;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GKE module's rules (terraform/modules/pubsub-clickhouse-gke): the pull-mode service on Arm
 * pods with Workload Identity and no key, probes on /livez and /healthz, a PodDisruptionBudget, a
 * kill only after the service's own shutdown grace, and replicas that follow the subscription's
 * backlog. What the module computes is computed by {@code terraform console} (LocalsEvaluation).
 */
class GkeModuleTest {
  private static final TerraformConfig GKE = TerraformFiles.GKE_MODULE;
  private static final HclBlock DEPLOYMENT = GKE.resource("kubernetes_deployment_v1", "ingest");
  private static final HclBlock POD = DEPLOYMENT.block("spec").block("template").block("spec");
  private static final HclBlock CONTAINER = POD.block("container");

  /** Values for the module's required variables. */
  private static final Map<String, String> REQUIRED =
      Map.of(
          "project_id", "my-project",
          "image", "r/p/i@sha256:" + "a".repeat(64),
          "subscription", "projects/my-project/subscriptions/ingest-pull",
          "clickhouse_url", "https://ch:8443",
          "clickhouse_table", "logs",
          "clickhouse_password_secret", "projects/my-project/secrets/pw/versions/3",
          "stub_data_google_project_this", "{number = \"123\"}",
          "stub_google_service_account_workload", "{email = \"w@x\", member = \"m\"}");

  @TempDir Path dir;
  private LocalsEvaluation locals;

  @BeforeEach
  void writeRootModule() {
    locals =
        new LocalsEvaluation(
            dir,
            GKE,
            Map.of(
                "probe_node_selector", "local.node_selector",
                "probe_grace", "local.termination_grace_period_seconds",
                "probe_ksa", "local.kubernetes_sa_member",
                "probe_scaler", "local.scaler_member",
                "probe_env", "local.service_env",
                "probe_secret", "local.password_secret",
                "probe_subscription", "local.subscription_name",
                "probe_subscription_project", "local.subscription_project"));
  }

  private String eval(String expression, Map<String, String> values) {
    return locals.evaluate(expression, with(values));
  }

  /** terraform console's complaints about the variables {@code expression} reads. */
  private String diagnostics(String expression, Map<String, String> values) {
    return locals.diagnostics(expression, with(values));
  }

  private static Map<String, String> with(Map<String, String> values) {
    Map<String, String> all = new HashMap<>(REQUIRED);
    all.putAll(values);
    return all;
  }

  @Test
  void podsAskForArmNodesAndTheAxionSeriesByDefault() {
    assertThat(POD.expr("node_selector").references()).containsExactly("local.node_selector");
    assertThat(eval("jsonencode(local.probe_node_selector)", Map.of()))
        .isEqualTo(
            "\"{\\\"cloud.google.com/machine-family\\\":\\\"c4a\\\",\\\"kubernetes.io/arch\\\":\\\"arm64\\\"}\"");
    assertThat(eval("jsonencode(local.probe_node_selector)", Map.of("arm_machine_family", "t2a")))
        .isEqualTo(
            "\"{\\\"cloud.google.com/machine-family\\\":\\\"t2a\\\",\\\"kubernetes.io/arch\\\":\\\"arm64\\\"}\"");
    assertThat(
            eval(
                "local.probe_node_selector[\"cloud.google.com/compute-class\"]",
                Map.of("compute_class", "Performance")))
        .isEqualTo("\"Performance\"");
    // arm64 whatever else is chosen: nothing can turn it off.
    assertThat(GKE.variables()).extracting(v -> v.label(0)).doesNotContain("architecture");
  }

  /**
   * Autopilot's Scale-Out class puts Arm pods on T2A only, so Scale-Out with the C4A machine family
   * asks for nodes that do not exist and the pods stay Pending.
   */
  @Test
  void theScaleOutClassIsRefusedWithTheAxionSeries() {
    assertThat(diagnostics("var.compute_class", Map.of("compute_class", "Scale-Out")))
        .contains("Invalid value for variable", "Scale-Out places Arm pods on T2A only");
    assertThat(
            diagnostics(
                "var.compute_class",
                Map.of("compute_class", "Scale-Out", "arm_machine_family", "c4a")))
        .contains("Invalid value for variable", "Scale-Out places Arm pods on T2A only");
    assertThat(
            diagnostics(
                "var.compute_class",
                Map.of("compute_class", "Scale-Out", "arm_machine_family", "t2a")))
        .doesNotContain("Invalid value for variable");
    assertThat(diagnostics("var.compute_class", Map.of("compute_class", "Performance")))
        .doesNotContain("Invalid value for variable");
  }

  @Test
  void thePodsActAsTheirGoogleAccountThroughWorkloadIdentityOnly() {
    HclBlock ksa = GKE.resource("kubernetes_service_account_v1", "workload");
    HclBlock binding = GKE.resource("google_service_account_iam_member", "workload_identity");

    assertThat(
            ksa.block("metadata")
                .expr("annotations")
                .objectEntry("iam.gke.io/gcp-service-account")
                .orElseThrow()
                .references())
        .containsExactly("google_service_account.workload.email");
    assertThat(ksa.block("metadata").expr("name").references())
        .containsExactly("local.kubernetes_sa_name");
    assertThat(POD.expr("service_account_name").references())
        .containsExactly("kubernetes_service_account_v1.workload.metadata[0].name");
    assertThat(binding.expr("role").literal())
        .contains(Literal.string("roles/iam.workloadIdentityUser"));
    assertThat(binding.expr("service_account_id").references())
        .containsExactly("google_service_account.workload.name");
    assertThat(binding.expr("member").references()).containsExactly("local.kubernetes_sa_member");
    assertThat(eval("local.probe_ksa", Map.of("namespace", "ingest", "name_prefix", "pch")))
        .isEqualTo("\"serviceAccount:my-project.svc.id.goog[ingest/pch]\"");
  }

  @Test
  void noKeyFileExistsAnywhereInTerraform() {
    for (Map.Entry<Path, TerraformConfig> module : TerraformFiles.TREE.modules().entrySet()) {
      assertThat(module.getValue().resources("google_service_account_key"))
          .as(module.getKey().toString())
          .isEmpty();
      for (HclFile file : module.getValue().files()) {
        assertThat(file.source())
            .as(module.getKey() + "/" + file.name())
            .doesNotContain("GOOGLE_APPLICATION_CREDENTIALS", "credentialsFromEnv");
      }
    }
    // Every Google call of the pods goes through the metadata server's Workload Identity tokens.
    assertThat(eval("keys(local.probe_env)", Map.of()))
        .doesNotContain("GOOGLE_APPLICATION_CREDENTIALS");
  }

  /**
   * The service ignores an environment variable it does not know, so a misspelt name would leave a
   * setting at its default without a word. The oracle is the service's own parameter table in
   * docs/configuration.md, which function's ReadmeTest keeps equal to PushParameters.ALL.
   */
  @Test
  void everyVariableThePodsAreGivenIsAParameterOfTheService() {
    Set<String> parameters = serviceParameters();
    assertThat(parameters).contains("PUBSUB_SUBSCRIPTION", "CLICKHOUSE_PASSWORD_SECRET");
    assertThat(CONTAINER.blocks("env")).isEmpty();
    assertThat(CONTAINER.dynamic("env").expr("for_each").references())
        .containsExactly("local.service_env");

    // Every optional variable set, so that every name the module can give is there.
    String names =
        eval(
            "join(\",\", keys(local.probe_env))",
            Map.of(
                "dead_letter_topic", "projects/my-project/topics/dl",
                "clickhouse_dead_letter_table", "dead_letters",
                "export_metrics_otlp", "true",
                "metrics_region", "europe-west4"));
    List<String> given = List.of(names.replace("\"", "").split(","));
    assertThat(given)
        .contains(
            "PUBSUB_SUBSCRIPTION",
            "PORT",
            "SHUTDOWN_GRACE_SECONDS",
            "CLICKHOUSE_DEAD_LETTER_TABLE",
            "DEAD_LETTER_TOPIC",
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
            "OTEL_RESOURCE_ATTRIBUTES");
    assertThat(parameters).containsAll(given);

    // The names the docs of the module and its service_env variable tell users to set.
    Matcher named =
        Pattern.compile("\\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\\b")
            .matcher(GKE.variable("service_env").expr("description").text());
    List<String> suggested = new ArrayList<>();
    while (named.find()) {
      suggested.add(named.group());
    }
    assertThat(suggested).isNotEmpty();
    assertThat(parameters).containsAll(suggested);
  }

  /** The variable names of the service's parameter table in docs/configuration.md. */
  private static Set<String> serviceParameters() {
    String doc = RepoFiles.read("docs/configuration.md");
    String table =
        doc.substring(
            doc.indexOf("<!-- push-parameters:start -->"),
            doc.indexOf("<!-- push-parameters:end -->"));
    Matcher row = Pattern.compile("(?m)^\\| `([A-Z0-9_]+)` \\|").matcher(table);
    Set<String> names = new TreeSet<>();
    while (row.find()) {
      names.add(row.group(1));
    }
    return names;
  }

  /**
   * Cloud Monitoring takes the location of metrics pushed over OTLP from cloud.region
   * (docs/operate.md); the pods are given it beside service.name, and OTLP without it is refused.
   */
  @Test
  void metricsPushedOverOtlpSayTheirRegion() {
    assertThat(
            eval(
                "local.probe_env[\"OTEL_RESOURCE_ATTRIBUTES\"]",
                Map.of("export_metrics_otlp", "true", "metrics_region", "europe-west4")))
        .isEqualTo("\"cloud.region=europe-west4,service.name=pubsub-clickhouse\"");
    assertThat(eval("contains(keys(local.probe_env), \"OTEL_RESOURCE_ATTRIBUTES\")", Map.of()))
        .isEqualTo("false");
    assertThat(diagnostics("var.metrics_region", Map.of("export_metrics_otlp", "true")))
        .contains(
            "Invalid value for variable", "metrics_region is required with export_metrics_otlp");
    assertThat(
            diagnostics(
                "var.metrics_region",
                Map.of("export_metrics_otlp", "true", "metrics_region", "europe-west4")))
        .doesNotContain("Invalid value for variable");
  }

  @Test
  void thePodReadsItsPasswordFromSecretManagerWithOneAccessorGrant() {
    HclBlock accessor =
        GKE.resource("google_secret_manager_secret_iam_member", "workload_password_accessor");

    assertThat(eval("local.probe_env[\"CLICKHOUSE_PASSWORD_SECRET\"]", Map.of()))
        .isEqualTo("\"projects/my-project/secrets/pw/versions/3\"");
    assertThat(eval("local.probe_secret", Map.of()))
        .isEqualTo("\"projects/my-project/secrets/pw\"");
    assertThat(accessor.expr("secret_id").references()).containsExactly("local.password_secret");
    assertThat(accessor.expr("member").references())
        .containsExactly("google_service_account.workload.member");
    assertThat(eval("contains(keys(local.probe_env), \"CLICKHOUSE_PASSWORD\")", Map.of()))
        .isEqualTo("false");
  }

  @Test
  void probesAreLivezForLifeAndHealthzForReadinessOnTheServicePort() {
    assertThat(probe("startup_probe")).isEqualTo("/livez");
    assertThat(probe("liveness_probe")).isEqualTo("/livez");
    assertThat(probe("readiness_probe")).isEqualTo("/healthz");
    for (String probe : List.of("startup_probe", "liveness_probe", "readiness_probe")) {
      assertThat(CONTAINER.block(probe).block("http_get").expr("port").references())
          .containsExactly("local.port");
    }
    assertThat(eval("local.probe_env[\"PORT\"]", Map.of())).isEqualTo("\"8080\"");
    assertThat(eval("local.probe_env[\"PUBSUB_SUBSCRIPTION\"]", Map.of()))
        .isEqualTo("\"projects/my-project/subscriptions/ingest-pull\"");
  }

  @Test
  void kubernetesKillsAPodOnlyAfterTheServicesShutdownGrace() {
    assertThat(POD.expr("termination_grace_period_seconds").references())
        .containsExactly("local.termination_grace_period_seconds");
    assertThat(eval("local.probe_env[\"SHUTDOWN_GRACE_SECONDS\"]", Map.of())).isEqualTo("\"25\"");
    assertThat(eval("local.probe_grace", Map.of())).isEqualTo("35");
    for (int grace : new int[] {5, 6, 25, 29, 3600}) {
      int seconds =
          Integer.parseInt(
              eval(
                  "local.probe_grace",
                  Map.of(
                      "shutdown_grace_seconds",
                      Integer.toString(grace),
                      "termination_margin_seconds",
                      "5")));
      assertThat(seconds).as("grace %d s", grace).isGreaterThanOrEqualTo(grace + 5);
    }
    for (String refused : new String[] {"4", "25000"}) {
      assertThatThrownBy(() -> eval("local.probe_grace", Map.of("shutdown_grace_seconds", refused)))
          .hasMessageContaining("shutdown_grace_seconds must be a whole number from 5 to 3600");
    }
    assertThatThrownBy(() -> eval("local.probe_grace", Map.of("termination_margin_seconds", "4")))
        .hasMessageContaining("termination_margin_seconds must be between 5 and 120");
  }

  @Test
  void aDisruptionBudgetCoversExactlyTheDeploymentsPods() {
    HclBlock pdb = GKE.resource("kubernetes_pod_disruption_budget_v1", "ingest");

    assertThat(pdb.block("spec").block("selector").expr("match_labels").references())
        .containsExactly("local.selector_labels");
    assertThat(DEPLOYMENT.block("spec").block("selector").expr("match_labels").references())
        .containsExactly("local.selector_labels");
    assertThat(pdb.block("spec").expr("max_unavailable").literal()).contains(Literal.string("1"));
    assertThat(
            DEPLOYMENT
                .block("spec")
                .block("strategy")
                .block("rolling_update")
                .expr("max_unavailable")
                .literal())
        .contains(Literal.string("0"));
  }

  @Test
  void theHorizontalPodAutoscalerFollowsTheSubscriptionsUndeliveredMessages() {
    HclBlock hpa = GKE.resource("kubernetes_horizontal_pod_autoscaler_v2", "ingest");
    HclBlock external = hpa.block("spec").block("metric").block("external");

    assertThat(hpa.expr("count").text()).isEqualTo("var.scaler == \"hpa\" ? 1 : 0");
    assertThat(external.block("metric").expr("name").literal())
        .contains(Literal.string("pubsub.googleapis.com|subscription|num_undelivered_messages"));
    assertThat(
            external
                .block("metric")
                .block("selector")
                .expr("match_labels")
                .objectEntry("resource.labels.subscription_id")
                .orElseThrow()
                .references())
        .containsExactly("local.subscription_name");
    assertThat(eval("local.probe_subscription", Map.of())).isEqualTo("\"ingest-pull\"");
    // The adapter reads the cluster's project unless the selector names another: a subscription
    // of another project (the monitoring.viewer grant is there) needs its project in the selector.
    assertThat(
            external
                .block("metric")
                .block("selector")
                .expr("match_labels")
                .objectEntry("resource.labels.project_id")
                .orElseThrow()
                .references())
        .containsExactly("local.subscription_project");
    assertThat(
            eval(
                "local.probe_subscription_project",
                Map.of("subscription", "projects/metrics-host/subscriptions/ingest-pull")))
        .isEqualTo("\"metrics-host\"");
    assertThat(external.block("target").expr("type").literal())
        .contains(Literal.string("AverageValue"));
    assertThat(external.block("target").expr("average_value").references())
        .containsExactly("var.backlog_per_replica");
    assertThat(hpa.block("spec").block("scale_target_ref").expr("name").references())
        .containsExactly("kubernetes_deployment_v1.ingest.metadata[0].name");
    assertThat(hpa.block("spec").expr("min_replicas").references())
        .containsExactly("var.min_replicas");
  }

  @Test
  void kedaScalesOnTheSubscriptionWithWorkloadIdentityAndDownToZero() {
    HclExpression scaled =
        GKE.resource("kubernetes_manifest", "keda_scaled_object").expr("manifest");
    HclExpression auth =
        GKE.resource("kubernetes_manifest", "keda_trigger_authentication").expr("manifest");
    HclExpression trigger = scaled.objectEntry("triggers").orElseThrow();

    assertThat(trigger.objectEntry("type").orElseThrow().literal())
        .contains(Literal.string("gcp-pubsub"));
    assertThat(trigger.objectEntry("subscriptionName").orElseThrow().references())
        .containsExactly("var.subscription");
    assertThat(trigger.objectEntry("mode").orElseThrow().literal())
        .contains(Literal.string("SubscriptionSize"));
    assertThat(scaled.objectEntry("minReplicaCount").orElseThrow().references())
        .containsExactly("var.min_replicas");
    assertThat(scaled.objectEntry("scaleTargetRef").orElseThrow().references())
        .containsExactly("kubernetes_deployment_v1.ingest.metadata[0].name");
    assertThat(auth.objectEntry("provider").orElseThrow().literal())
        .contains(Literal.string("gcp"));
    // KEDA's operator reads Cloud Monitoring as its own Kubernetes service account.
    assertThat(eval("local.probe_scaler", Map.of("scaler", "keda")))
        .isEqualTo(
            "\"principal://iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/"
                + "my-project.svc.id.goog/subject/ns/keda/sa/keda-operator\"");
    assertThat(eval("local.probe_scaler", Map.of()))
        .endsWith("/subject/ns/custom-metrics/sa/custom-metrics-stackdriver-adapter\"");
  }

  @Test
  void zeroReplicasOnlyWhereTheScalerCanWakeTheDeploymentUp() {
    // terraform console checks the validation of each variable the expression reads.
    assertThat(diagnostics("var.min_replicas", Map.of("scaler", "keda", "min_replicas", "0")))
        .doesNotContain("Invalid value for variable");
    assertThat(diagnostics("var.min_replicas", Map.of("scaler", "hpa", "min_replicas", "1")))
        .doesNotContain("Invalid value for variable");
    assertThat(diagnostics("var.min_replicas", Map.of("scaler", "hpa", "min_replicas", "0")))
        .contains("Invalid value for variable", "at least 1 with scaler");
    assertThat(diagnostics("var.max_replicas", Map.of("min_replicas", "3", "max_replicas", "2")))
        .contains("max_replicas must be between 1 and 1000 and at least min_replicas");
  }

  @Test
  void theImageIsPinnedByDigest() {
    assertThat(diagnostics("var.image", Map.of())).doesNotContain("Invalid value for variable");
    assertThat(diagnostics("var.image", Map.of("image", "r/p/i:latest")))
        .contains("Invalid value for variable", "image must name a digest");
  }

  /**
   * docs/pull.md: a nack is delivered again after the subscription's retry policy, and a message
   * nacked again and again leaves through its dead-letter policy. The example makes the pull
   * subscription the module reads, so it carries both, and a backoff that is not "at once".
   */
  @Test
  void theExamplesPullSubscriptionBacksOffAndDeadLetters() {
    TerraformConfig example = TerraformFiles.TREE.module("examples/gke-autopilot-arm64");
    HclBlock subscription = example.resource("google_pubsub_subscription", "ingest");

    assertThat(subscription.blocks("push_config")).isEmpty();
    HclBlock retry = subscription.block("retry_policy");
    assertThat(seconds(retry.expr("minimum_backoff"))).isBetween(5, 60);
    assertThat(seconds(retry.expr("maximum_backoff"))).isEqualTo(600);
    HclBlock deadLetter = subscription.block("dead_letter_policy");
    assertThat(deadLetter.expr("dead_letter_topic").references())
        .containsExactly("google_pubsub_topic.dead_letter.id");
    assertThat(deadLetter.expr("max_delivery_attempts").literal()).contains(Literal.number("20"));
    assertThat(subscription.block("expiration_policy").expr("ttl").literal())
        .contains(Literal.string(""));
    // The module reads exactly this subscription and publishes to exactly this dead-letter topic.
    HclBlock module =
        example.blocks("module").stream()
            .filter(block -> block.label(0).equals("pubsub_clickhouse_gke"))
            .findFirst()
            .orElseThrow();
    assertThat(module.expr("subscription").references())
        .containsExactly("google_pubsub_subscription.ingest.id");
    assertThat(module.expr("dead_letter_topic").references())
        .containsExactly("google_pubsub_topic.dead_letter.id");
  }

  private static int seconds(HclExpression duration) {
    String text = duration.literal().orElseThrow().value();
    assertThat(text).matches("[0-9]+s");
    return Integer.parseInt(text.substring(0, text.length() - 1));
  }

  private static String probe(String name) {
    return CONTAINER.block(name).block("http_get").expr("path").literal().orElseThrow().value();
  }
}
