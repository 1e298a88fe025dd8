package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * docs/deploy.md, followed against the Terraform files: the items marked (test) in its reviewer's
 * checklist. README.md links the page and repeats none of its commands.
 */
class DeployDocsTest {
  private static final String README = RepoFiles.read("README.md");
  private static final String DEPLOY = RepoFiles.read("docs/deploy.md");
  private static final List<String> EXAMPLES = List.of("clickhouse-cloud", "clickhouse-vm");

  @Test
  void theApisTheDocsEnableAreTheOnesTheModuleNeeds() {
    List<String> required =
        TerraformFiles.MODULE.local("required_apis").stringLiterals().stream()
            .filter(s -> s.endsWith(".googleapis.com"))
            .collect(Collectors.toList());
    List<String> deploy =
        all(
            Pattern.compile("([a-z]+\\.googleapis\\.com)"),
            section(DEPLOY, "## 1. Enable the APIs"));

    assertThat(deploy).isSubsetOf(required);
    assertThat(deploy).containsAll(required);
  }

  @Test
  void theDocsNameTheExamplesThatExistAndTheExampleByDefault() {
    for (String example : EXAMPLES) {
      assertThat(RepoFiles.path("terraform/examples/" + example + "/terraform.tfvars.example"))
          .exists();
      HclBlock call = TerraformFiles.TREE.module("examples/" + example).blocks("module").get(0);
      assertThat(call.label(0)).isEqualTo("pubsub_clickhouse");
      assertThat(call.expr("source").literal())
          .contains(Literal.string("../../modules/pubsub-clickhouse"));
    }
    assertThat(DEPLOY).contains("export EXAMPLE=clickhouse-cloud   # or clickhouse-vm");
    assertThat(README + DEPLOY).doesNotContain("terraform -chdir=terraform ");
  }

  @Test
  void eachExampleNamesTheDatasetsTheBackfillMayRead() {
    // The job's account gets dataViewer only on the datasets the module is given; an example
    // that passes none leaves the backfill command of docs/deploy.md failing with Access Denied.
    for (String example : EXAMPLES) {
      HclBlock call = TerraformFiles.TREE.module("examples/" + example).blocks("module").get(0);
      assertThat(call.attribute("backfill_source_datasets")).as(example).isPresent();
    }
    assertThat(section(DEPLOY, "## Run a backfill")).contains("backfill_source_datasets");
  }

  @Test
  void everyTargetOfTheFirstApplyIsAResourceOfTheModule() {
    Pattern target = Pattern.compile("-target=module\\.pubsub_clickhouse\\.(google_\\w+)\\.(\\w+)");
    List<String> targets = all(target, DEPLOY, 1, 2);

    assertThat(targets)
        .containsOnly(
            "google_artifact_registry_repository.images",
            "google_secret_manager_secret.clickhouse_password")
        .hasSize(2);
    for (String address : targets) {
      String[] parts = address.split("\\.");
      assertThat(TerraformFiles.MODULE.resource(parts[0], parts[1])).isNotNull();
    }
    assertThat(
            section(DEPLOY, "## 2. Fill in the variables and create the repository and the secret"))
        .doesNotContainPattern("-target=(?!module\\.pubsub_clickhouse\\.)");
  }

  @Test
  void everyTerraformOutputTheDocsReadIsAnOutputOfBothExamples() {
    Pattern output = Pattern.compile("terraform(?: -chdir=\\S+)? output(?: -raw)? ([a-z_]+)");
    List<String> read = all(output, DEPLOY);

    assertThat(read).contains("clickhouse_password_secret", "ingest_topic_name", "service_name");
    for (String example : EXAMPLES) {
      TerraformConfig module = TerraformFiles.TREE.module("examples/" + example);
      List<String> outputs =
          module.outputs().stream().map(o -> o.label(0)).collect(Collectors.toList());
      List<String> vmOnly = List.of("clickhouse_url", "clickhouse_vm_backup_bucket");
      assertThat(outputs)
          .as(example)
          .containsAll(
              read.stream()
                  .filter(o -> example.equals("clickhouse-vm") || !vmOnly.contains(o))
                  .distinct()
                  .collect(Collectors.toList()));
    }
  }

  @Test
  void everyBuildCommandPassesShortShaAndTheFirstOneOnlyPushes() {
    Pattern submit =
        Pattern.compile(
            "gcloud builds submit --config\\s+cloudbuild\\.yaml\\s+(?:\\\\\\n[#\\s]*)?(--substitutions=\\S+)");
    List<String> commands = new ArrayList<>(all(submit, README));
    commands.addAll(all(submit, DEPLOY));
    commands.addAll(all(submit, RepoFiles.read("cloudbuild.yaml")));

    assertThat(commands).hasSize(3);
    assertThat(commands).allSatisfy(c -> assertThat(c).contains("SHORT_SHA="));
    assertThat(all(submit, section(DEPLOY, "## 3. Build and push the images")).get(0))
        .contains("_DEPLOY=false");
    Map<String, Object> build =
        new Yaml(new SafeConstructor(new LoaderOptions())).load(RepoFiles.read("cloudbuild.yaml"));
    @SuppressWarnings("unchecked")
    Map<String, Object> substitutions = (Map<String, Object>) build.get("substitutions");
    assertThat(
            TerraformFiles.MODULE
                .variable("artifact_registry_repository_id")
                .expr("default")
                .literal())
        .contains(Literal.string((String) substitutions.get("_REPOSITORY")));
  }

  @Test
  void theTablesExistBeforeTheServiceAndNewImagesComeFromCloudBuildOnly() {
    assertThat(DEPLOY.indexOf("## 5. Create the tables")).isLessThan(DEPLOY.indexOf("## 6. Apply"));
    String rollout = section(DEPLOY, "## Roll out a new version");
    assertThat(rollout)
        .contains("gcloud builds submit")
        .doesNotContain("-var", "terraform apply -");
    assertThat(rollout).contains("keeps what the build deployed");
  }

  private static List<String> all(Pattern pattern, String text) {
    return all(pattern, text, 1);
  }

  /** The groups of every match, joined with "." when several. */
  private static List<String> all(Pattern pattern, String text, int... groups) {
    List<String> found = new ArrayList<>();
    Matcher m = pattern.matcher(text);
    while (m.find()) {
      List<String> parts = new ArrayList<>();
      for (int g : groups) {
        parts.add(m.group(g));
      }
      found.add(String.join(".", parts));
    }
    return found;
  }

  /** From {@code heading} to the next heading of the same level. */
  private static String section(String text, String heading) {
    int start = text.indexOf("\n" + heading + "\n");
    assertThat(start).as(heading).isNotNegative();
    String level = heading.substring(0, heading.indexOf(' ') + 1);
    int end = text.indexOf("\n" + level, start + heading.length() + 1);
    return text.substring(start, end < 0 ? text.length() : end);
  }
}
