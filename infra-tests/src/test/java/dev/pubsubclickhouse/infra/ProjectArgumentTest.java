package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import dev.pubsubclickhouse.infra.schema.ProviderSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every resource and data source of the module names its project, so nothing lands in whatever
 * project the caller's provider block defaults to while the APIs, the project-level grants and the
 * dataset names use var.project_id. An IAM grant on a parent named by its full id (projects/P/...)
 * already carries the project and may leave it out.
 */
class ProjectArgumentTest {
  private static final TerraformConfig TF = TerraformFiles.MODULE;

  /** The argument of each grant type that names its parent. */
  private static final Map<String, String> IAM_PARENT =
      Map.of(
          "google_pubsub_topic_iam_member", "topic",
          "google_pubsub_subscription_iam_member", "subscription",
          "google_pubsub_schema_iam_member", "schema",
          "google_secret_manager_secret_iam_member", "secret_id",
          "google_service_account_iam_member", "service_account_id");

  @Test
  void everyResourceAndDataSourceThatTakesAProjectIsGivenOne() {
    List<String> missing = new ArrayList<>();
    List<HclBlock> blocks = new ArrayList<>(TF.blocks("resource"));
    blocks.addAll(TF.blocks("data"));
    for (HclBlock block : blocks) {
      String type = block.label(0);
      if (type.equals("terraform_data")) {
        continue; // Terraform's own resource: nothing in a project
      }
      Optional<ProviderSchema.Node> schema = schemaOf(block);
      assertThat(schema).as(block.describe()).isPresent();
      if (!schema.get().arguments().contains("project")
          || block.attribute("project").isPresent()
          || namesItsParentByFullId(block)) {
        continue;
      }
      missing.add(block.describe());
    }

    assertThat(missing).isEmpty();
  }

  @Test
  void aGrantOnAParentNamedByShortIdIsNotExcused() {
    HclBlock caGrant =
        TF.resource("google_secret_manager_secret_iam_member", "service_ca_accessor");

    // local.clickhouse_ca_secret is a secret ID the caller gives, not projects/P/secrets/S.
    assertThat(namesItsParentByFullId(caGrant)).isFalse();
    assertThat(caGrant.attribute("project")).isPresent();
  }

  /**
   * A grant whose parent is another resource's id, or a service account's name: both are
   * projects/P/....
   */
  private static boolean namesItsParentByFullId(HclBlock block) {
    String parent = IAM_PARENT.get(block.label(0));
    if (parent == null) {
      return false;
    }
    List<String> references = block.expr(parent).references();
    if (references.size() != 1) {
      return false;
    }
    String reference = references.get(0).replaceAll("\\[[^]]*]", "");
    return reference.matches("google_\\w+\\.\\w+\\.id")
        || reference.matches("google_service_account\\.\\w+\\.name");
  }

  private static Optional<ProviderSchema.Node> schemaOf(HclBlock block) {
    boolean beta =
        block.attribute("provider").isPresent()
            && block.expr("provider").references().contains("google-beta");
    ProviderSchema provider = beta ? ProviderSchema.googleBeta() : ProviderSchema.google();
    return block.type().equals("data")
        ? provider.dataSource(block.label(0))
        : provider.resource(block.label(0));
  }
}
