package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.HclFile;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** terraform/iam.tf and the bindings in the other files: who may do what. */
class IamTest {
  private static final TerraformConfig TF = TerraformConfig.load(RepoFiles.path("terraform"));
  private static final String PUBSUB_AGENT_DOMAIN = "@gcp-sa-pubsub.iam.gserviceaccount.com";

  @Test
  void thePubSubServiceAgentIsNamedOnceInALocal() {
    List<String> mentions =
        TF.nestedAttributes().stream()
            .flatMap(n -> n.attribute().value().stringLiterals().stream())
            .filter(s -> s.contains("gcp-sa-pubsub"))
            .collect(Collectors.toList());

    assertThat(mentions).containsExactly(PUBSUB_AGENT_DOMAIN);
    assertThat(TF.local("pubsub_service_agent").stringLiterals())
        .containsExactly("serviceAccount:service-", PUBSUB_AGENT_DOMAIN);
    assertThat(TF.local("pubsub_service_agent").references())
        .containsExactly("data.google_project.this.number");
  }

  @Test
  void thePubSubServiceAgentMayPublishToTheDeadLetterTopic() {
    List<HclBlock> grants =
        TF.resources("google_pubsub_topic_iam_member").stream()
            .filter(
                b -> b.expr("member").references().equals(List.of("local.pubsub_service_agent")))
            .collect(Collectors.toList());

    assertThat(grants).hasSize(1);
    assertThat(grants.get(0).expr("topic").references())
        .containsExactly("google_pubsub_topic.dead_letter.id");
    assertThat(grants.get(0).expr("role").literal())
        .contains(Literal.string("roles/pubsub.publisher"));
  }

  @Test
  void thePubSubServiceAgentMaySubscribeToThePushSubscription() {
    List<HclBlock> grants =
        TF.resources("google_pubsub_subscription_iam_member").stream()
            .filter(
                b -> b.expr("member").references().equals(List.of("local.pubsub_service_agent")))
            .collect(Collectors.toList());

    assertThat(grants).hasSize(1);
    assertThat(grants.get(0).expr("subscription").references())
        .containsExactly("google_pubsub_subscription.push.id");
    assertThat(grants.get(0).expr("role").literal())
        .contains(Literal.string("roles/pubsub.subscriber"));
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
    assertThat(grant.expr("member").stringLiterals()).containsExactly("serviceAccount:", "");
    assertThat(grant.expr("member").references())
        .containsExactly("google_service_account.push.email");
    assertThat(grant.expr("name").references())
        .containsExactly("google_cloud_run_v2_service.ingest.name");
  }

  @Test
  void theServiceAccountGetsOnlyLogAndMetricWritingOnTheProject() {
    assertThat(projectRolesOf("google_service_account.service.email"))
        .containsExactlyInAnyOrder("roles/logging.logWriter", "roles/monitoring.metricWriter");
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
    return TF.resources("google_secret_manager_secret_iam_member").stream()
        .filter(b -> b.expr("secret_id").references().equals(List.of(secretReference)))
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
    assertThat(grantsOn("var.clickhouse_ca_certificate_secret"))
        .containsExactlyInAnyOrder(
            "roles/secretmanager.secretAccessor google_service_account.service.email"
                + " if var.clickhouse_ca_certificate_secret",
            "roles/secretmanager.secretAccessor google_service_account.backfill[0].email"
                + " if var.clickhouse_ca_certificate_secret,var.create_backfill_job");
  }

  @Test
  void theBackfillAccountGetsOnlyBigQuerySessionAndJobRightsOnTheProject() {
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
    assertThat(datasetGrants).hasSize(2);
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
    return TF.resources("google_project_iam_member").stream()
        .filter(b -> b.expr("member").references().equals(List.of(accountEmailReference)))
        .map(b -> b.expr("role").literal().orElseThrow().value())
        .collect(Collectors.toList());
  }
}
