package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.HclFile;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module's iam.tf and the bindings in the other files: who may do what. */
class IamTest {
  private static final TerraformConfig TF = TerraformFiles.MODULE;

  @Test
  void thePubSubServiceAgentComesFromItsServiceIdentityNamedOnceInALocal() {
    HclBlock identity = TF.resource("google_project_service_identity", "pubsub");
    List<String> mentions =
        TF.files().stream()
            .filter(f -> f.source().contains("gcp-sa-pubsub"))
            .map(HclFile::name)
            .collect(Collectors.toList());

    assertThat(mentions).as("files assembling the agent's address by hand").isEmpty();
    assertThat(identity.expr("service").literal())
        .contains(Literal.string("pubsub.googleapis.com"));
    assertThat(identity.expr("provider").references()).containsExactly("google-beta");
    // Created after the Pub/Sub API is on; every grant to the agent references it, so follows it.
    assertThat(identity.expr("depends_on").references())
        .containsExactly("google_project_service.enabled");
    assertThat(TF.local("pubsub_service_agent").stringLiterals())
        .containsExactly("serviceAccount:");
    assertThat(TF.local("pubsub_service_agent").references())
        .containsExactly("google_project_service_identity.pubsub.email");
  }

  @Test
  void thePushSubscriptionWaitsForTheAgentsGrants() {
    assertThat(TF.resource("google_pubsub_subscription", "push").expr("depends_on").references())
        .containsExactlyInAnyOrder(
            "google_pubsub_topic_iam_member.dead_letter_publisher_pubsub_agent",
            "google_service_account_iam_member.push_token_creator_pubsub_agent",
            "google_cloud_run_v2_service_iam_member.push_invoker");
    assertThat(
            TF.resource("google_service_account_iam_member", "push_token_creator_pubsub_agent")
                .expr("member")
                .references())
        .containsExactly("local.pubsub_service_agent");
  }

  @Test
  void thePubSubServiceAgentMayPublishToTheDeadLetterTopic() {
    HclBlock grant = onlyGrantToTheAgent("google_pubsub_topic_iam_member");

    assertThat(grant.expr("topic").references())
        .containsExactly("google_pubsub_topic.dead_letter.id");
    assertThat(grant.expr("role").literal()).contains(Literal.string("roles/pubsub.publisher"));
  }

  @Test
  void thePubSubServiceAgentMaySubscribeToThePushSubscription() {
    HclBlock grant = onlyGrantToTheAgent("google_pubsub_subscription_iam_member");

    assertThat(grant.expr("subscription").references())
        .containsExactly("google_pubsub_subscription.push.id");
    assertThat(grant.expr("role").literal()).contains(Literal.string("roles/pubsub.subscriber"));
  }

  /** The one grant of this type to the Pub/Sub service agent. */
  private static HclBlock onlyGrantToTheAgent(String grantType) {
    List<HclBlock> grants =
        TF.resourcesReferencing(grantType, "member", "local.pubsub_service_agent");
    assertThat(grants).as(grantType).hasSize(1);
    return grants.get(0);
  }

  @Test
  void noFileMentionsAllUsersOrAllAuthenticatedUsers() {
    List<String> offenders =
        TF.files().stream()
            .filter(
                f ->
                    f.source().contains("allUsers") || f.source().contains("allAuthenticatedUsers"))
            .map(HclFile::name)
            .collect(Collectors.toList());

    assertThat(offenders).isEmpty();
  }

  @Test
  void everyIamMemberIsAServiceAccountOrThePubSubServiceAgent() {
    List<String> others =
        TF.resourcesMatching("google_.*_iam_member").stream()
            .filter(b -> !isServiceAccountMember(b))
            .map(b -> b.describe() + ": member = " + b.expr("member").text())
            .collect(Collectors.toList());

    assertThat(others).isEmpty();
    assertThat(TF.resourcesMatching("google_.*_iam_(policy|binding)")).isEmpty();
  }

  @Test
  void runInvokerIsGrantedOnlyToThePushServiceAccount() {
    List<HclBlock> invokerGrants =
        TF.nestedAttributes().stream()
            .filter(n -> n.attribute().value().stringLiterals().contains("roles/run.invoker"))
            .map(n -> n.holder())
            .collect(Collectors.toList());

    assertThat(invokerGrants).hasSize(1);
    HclBlock grant = invokerGrants.get(0);
    assertThat(grant.labels())
        .containsExactly("google_cloud_run_v2_service_iam_member", "push_invoker");
    assertThat(grant.expr("role").literal()).contains(Literal.string("roles/run.invoker"));
    assertThat(grant.expr("member").stringLiterals()).containsExactly("serviceAccount:");
    assertThat(grant.expr("member").references())
        .containsExactly("google_service_account.push.email");
    assertThat(grant.expr("name").references())
        .containsExactly("google_cloud_run_v2_service.ingest.name");
  }

  @Test
  void theServiceAccountGetsMetricWritingOnTheProjectOnlyWhenItsMetricsAreWritten() {
    HclBlock metricWriter = TF.resource("google_project_iam_member", "service_metric_writer");
    HclBlock telemetryWriter = TF.resource("google_project_iam_member", "service_telemetry_writer");

    // Cloud Run ships stdout and stderr to Cloud Logging itself: no logWriter.
    assertThat(projectRolesOf("google_service_account.service.email"))
        .containsExactlyInAnyOrder(
            "roles/monitoring.metricWriter", "roles/telemetry.metricsWriter");
    assertThat(metricWriter.expr("count").references())
        .containsExactly("var.export_metrics_otlp", "var.enable_managed_prometheus");
    assertThat(telemetryWriter.expr("count").references())
        .containsExactly("var.export_metrics_otlp");
  }

  @Test
  void theServiceAccountMayPublishToTheDeadLetterTopic() {
    HclBlock grant = TF.resource("google_pubsub_topic_iam_member", "dead_letter_publisher_service");

    assertThat(grant.expr("topic").references())
        .containsExactly("google_pubsub_topic.dead_letter.id");
    assertThat(grant.expr("role").literal()).contains(Literal.string("roles/pubsub.publisher"));
    assertThat(grant.expr("member").references())
        .containsExactly("google_service_account.service.email");
  }

  /** "role member-references if count-references" of every grant on this secret. */
  private static List<String> grantsOn(String secretReference) {
    return TF
        .resourcesReferencing(
            "google_secret_manager_secret_iam_member", "secret_id", secretReference)
        .stream()
        .map(
            b ->
                b.expr("role").literal().orElseThrow().value()
                    + " "
                    + String.join(",", b.expr("member").references())
                    + (b.attribute("count").isPresent()
                        ? " if " + String.join(",", b.expr("count").references())
                        : ""))
        .collect(Collectors.toList());
  }

  @Test
  void theServiceTheJobAndTheClickHouseVmMayReadThePasswordSecretAndNobodyElse() {
    assertThat(grantsOn("google_secret_manager_secret.clickhouse_password.id"))
        .containsExactlyInAnyOrder(
            "roles/secretmanager.secretAccessor google_service_account.service.email",
            "roles/secretmanager.secretAccessor google_service_account.backfill[0].email"
                + " if var.create_backfill_job",
            "roles/secretmanager.secretAccessor google_service_account.clickhouse_vm[0].email"
                + " if var.create_clickhouse_vm");
  }

  @Test
  void theServiceAndTheJobMayReadTheOptionalCaCertificateSecret() {
    assertThat(grantsOn("local.clickhouse_ca_secret"))
        .containsExactlyInAnyOrder(
            "roles/secretmanager.secretAccessor google_service_account.service.email"
                + " if local.clickhouse_ca_secret",
            "roles/secretmanager.secretAccessor google_service_account.backfill[0].email"
                + " if local.clickhouse_ca_secret,var.create_backfill_job");
  }

  @Test
  void onlyTheClickHouseVmMayReadItsTlsSecretsAndWriteItsBackups() {
    HclBlock tls =
        TF.resource("google_secret_manager_secret_iam_member", "clickhouse_vm_tls_accessor");
    HclBlock backups =
        TF.resource("google_storage_bucket_iam_member", "clickhouse_vm_backup_writer");

    assertThat(tls.expr("for_each").references())
        .contains(
            "var.clickhouse_vm_tls_certificate_secret", "var.clickhouse_vm_tls_private_key_secret");
    assertThat(tls.expr("member").references())
        .containsExactly("google_service_account.clickhouse_vm[0].email");
    // Add and read back backups; deleting is the bucket's lifecycle rule's.
    assertThat(backups.expr("for_each").stringLiterals())
        .containsExactly("roles/storage.objectCreator", "roles/storage.objectViewer");
    assertThat(backups.expr("member").references())
        .containsExactly("google_service_account.clickhouse_vm[0].email");
    assertThat(backups.expr("bucket").references())
        .containsExactly("google_storage_bucket.clickhouse_backups[0].name");
  }

  @Test
  void theBackfillAccountGetsOnlyBigQuerySessionAndJobRightsOnTheProject() {
    // readSessionUser: the job reads tables through the BigQuery Storage Read API.
    assertThat(projectRolesOf("google_service_account.backfill[0].email"))
        .containsExactlyInAnyOrder("roles/bigquery.readSessionUser", "roles/bigquery.jobUser");
  }

  @Test
  void theBackfillAccountReadsTheSourceDatasetsAndWritesTheDeadLetterDatasetOnly() {
    List<HclBlock> datasetGrants = TF.resources("google_bigquery_dataset_iam_member");

    assertThat(datasetGrants)
        .allSatisfy(
            b ->
                assertThat(b.expr("member").references())
                    .containsExactly("google_service_account.backfill[0].email"));
    HclBlock viewer = TF.resource("google_bigquery_dataset_iam_member", "backfill_source_viewer");
    assertThat(viewer.expr("role").literal()).contains(Literal.string("roles/bigquery.dataViewer"));
    assertThat(viewer.expr("for_each").references()).contains("local.backfill_read_datasets");
    HclBlock editor =
        TF.resource("google_bigquery_dataset_iam_member", "backfill_deadletter_editor");
    assertThat(editor.expr("role").literal()).contains(Literal.string("roles/bigquery.dataEditor"));
    assertThat(editor.expr("dataset_id").references())
        .containsExactly("local.backfill_deadletter_dataset");
    // The default dead-letter table goes to the job's own dataset, which it may write.
    HclBlock own =
        TF.resource("google_bigquery_dataset_iam_member", "backfill_dead_letters_editor");
    assertThat(own.expr("role").literal()).contains(Literal.string("roles/bigquery.dataEditor"));
    assertThat(own.expr("dataset_id").references())
        .containsExactly("google_bigquery_dataset.backfill_dead_letters[0].dataset_id");
    assertThat(datasetGrants).hasSize(3);
  }

  private static boolean isServiceAccountMember(HclBlock binding) {
    var member = binding.expr("member");
    if (member.references().equals(List.of("local.pubsub_service_agent"))) {
      return true;
    }
    List<String> literals = member.stringLiterals();
    return !literals.isEmpty()
        && literals.get(0).equals("serviceAccount:")
        && member.references().size() == 1
        && member.references().get(0).startsWith("google_service_account.");
  }

  private static List<String> projectRolesOf(String accountEmailReference) {
    return TF
        .resourcesReferencing("google_project_iam_member", "member", accountEmailReference)
        .stream()
        .map(b -> b.expr("role").literal().orElseThrow().value())
        .collect(Collectors.toList());
  }
}
