package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code gcloud builds submit} uploads from the repository's root: gcloud reads the root
 * {@code .gcloudignore} alone (never a nested .gitignore such as terraform/'s), so that file must
 * keep the Terraform state, its inputs (the ClickHouse password) and local build output at home.
 * The file's patterns follow .gitignore's rules, so git itself decides here what they cover.
 */
class BuildSourcesTest {
  @TempDir Path dir;

  @Test
  void theBuildsUploadLeavesTerraformStateInputsAndBuildOutputBehind() throws IOException {
    List<String> secretOrLocal =
        List.of(
            "terraform/examples/clickhouse-cloud/terraform.tfvars",
            "terraform/examples/clickhouse-vm/terraform.tfvars",
            "terraform/examples/clickhouse-cloud/prod.auto.tfvars",
            "terraform/examples/clickhouse-cloud/terraform.tfstate",
            "terraform/examples/clickhouse-vm/terraform.tfstate.backup",
            "terraform/examples/clickhouse-cloud/.terraform/terraform.tfstate",
            "terraform/examples/clickhouse-cloud/.terraform/providers/registry/x",
            "terraform/examples/clickhouse-cloud/tfplan",
            ".local/clickhouse/users.xml",
            "function/target/function.jar",
            "scripts/node_modules/x/index.js",
            ".git/config");
    List<String> sources =
        List.of(
            "pom.xml",
            "cloudbuild.yaml",
            "core/pom.xml",
            "function/src/main/java/dev/pubsubclickhouse/function/PushFunction.java",
            "backfill-job/src/main/resources/x.properties",
            "sql/logs.sql",
            "terraform/examples/clickhouse-cloud/terraform.tfvars.example",
            "terraform/modules/pubsub-clickhouse/main.tf");

    assertThat(ignored(secretOrLocal)).containsExactlyInAnyOrderElementsOf(secretOrLocal);
    assertThat(ignored(sources)).isEmpty();
  }

  /** The paths of {@code paths} that the repository's .gcloudignore excludes. */
  private List<String> ignored(List<String> paths) throws IOException {
    Path gcloudIgnore = RepoFiles.path(".gcloudignore");
    assertThat(gcloudIgnore).as("the root .gcloudignore").exists();
    // An empty repository whose only ignore file is .gcloudignore: nothing else can decide.
    String git = LocalTools.require("git");
    assertThat(LocalTools.run(dir, "", Map.of(), git, "init", "-q", ".").exitCode()).isZero();
    Files.copy(gcloudIgnore, dir.resolve(".gitignore"));
    String[] command = new String[paths.size() + 3];
    command[0] = git;
    command[1] = "check-ignore";
    command[2] = "--no-index";
    for (int i = 0; i < paths.size(); i++) {
      command[i + 3] = paths.get(i);
    }
    LocalTools.Result result = LocalTools.run(dir, "", Map.of(), command);
    assertThat(result.exitCode()).as(result.err()).isIn(0, 1);
    Files.delete(dir.resolve(".gitignore"));
    return result.out().lines().toList();
  }
}
