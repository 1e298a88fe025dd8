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
 * docs/deploy.md (the README links it and repeats none of it), followed against the Terraform files
 * and the builds: the quick start is a transcript of at most four commands from an empty project to
 * the first row, with one untargeted terraform apply that also builds the images, no grant typed by
 * hand and no table made by hand.
 */
class DeployDocsTest {
  private static final String README = RepoFiles.read("README.md");
  private static final String DEPLOY = RepoFiles.read("docs/deploy.md");
  private static final List<String> EXAMPLES = List.of("clickhouse-cloud", "clickhouse-vm");
  private static final String QUICK_START_EXAMPLE = "clickhouse-cloud";

  /** The quick start's commands: every line of its first shell block, comments aside. */
  private static final List<String> TRANSCRIPT = transcript();

  @Test
  void theQuickStartReachesTheFirstRowInAtMostFourCommands() {
    assertThat(TRANSCRIPT).hasSizeLessThanOrEqualTo(4);
    assertThat(TRANSCRIPT).noneMatch(line -> line.endsWith("\\"));
    assertThat(TRANSCRIPT.get(0)).startsWith("gcloud services enable ");
    assertThat(TRANSCRIPT.get(1))
        .isEqualTo("terraform -chdir=terraform/examples/" + QUICK_START_EXAMPLE + " init");
    assertThat(TRANSCRIPT.get(2))
        .endsWith("terraform -chdir=terraform/examples/" + QUICK_START_EXAMPLE + " apply");
    assertThat(TRANSCRIPT.get(3)).startsWith("gcloud pubsub topics publish ");
    // The images are the apply's (ApplyBuildTest): no build runs before Terraform.
    assertThat(String.join("\n", TRANSCRIPT)).doesNotContain("builds submit");
  }

  @Test
  void theQuickStartAppliesOnceUntargetedAndTypesNoGrantAndNoTable() {
    assertThat(TRANSCRIPT.stream().filter(line -> line.matches(".*\\bterraform\\b.* apply\\b.*")))
        .hasSize(1);
    assertThat(String.join("\n", TRANSCRIPT))
        .doesNotContain("-target", "add-iam-policy-binding", "curl", "clickhouse-client")
        .doesNotContain("secrets versions add", "cp ", "sed ");
    assertThat(README + DEPLOY).doesNotContainPattern("terraform[^\\n]* -target");
    // The tables are the apply's: a one-shot job the service waits for.
    HclBlock tables = TerraformFiles.MODULE.resource("google_cloud_run_v2_job", "create_tables");
    assertThat(tables.attribute("run_execution_token")).isPresent();
    assertThat(
            TerraformFiles.MODULE
                .resource("google_cloud_run_v2_service", "ingest")
                .expr("depends_on")
                .references())
        .contains("google_cloud_run_v2_job.create_tables");
  }

  @Test
  void thePushSubscriptionDeliversOnlyToTheServiceRunningTheBuiltImage() {
    // The subscription is made from the service's URL, and the service from the image the build
    // pushed, read by digest: no placeholder image ever takes (and acknowledges) a push.
    HclBlock service = TerraformFiles.MODULE.resource("google_cloud_run_v2_service", "ingest");
    assertThat(service.block("template").block("containers").expr("image").references())
        .containsExactly("local.service_image");
    assertThat(TerraformFiles.MODULE.local("service_image").references())
        .contains(
            "var.service_image",
            "data.google_artifact_registry_docker_image.function[0].self_link");
    assertThat(TerraformFiles.MODULE.variableDefault("service_image"))
        .contains(Literal.nullValue());
  }

  @Test
  void theQuickStartNeedsATfvarsOfAtMostFiveValuesAndEveryRequiredOne() {
    String example = "terraform/examples/" + QUICK_START_EXAMPLE + "/terraform.tfvars.example";
    List<String> set =
        RepoFiles.read(example)
            .lines()
            .filter(line -> line.matches("[a-z_]+\\s*=.*"))
            .map(line -> line.substring(0, line.indexOf('=')).trim())
            .collect(Collectors.toList());
    List<String> required =
        TerraformFiles.TREE.module("examples/" + QUICK_START_EXAMPLE).variables().stream()
            .filter(v -> v.attribute("default").isEmpty())
            .map(v -> v.label(0))
            .collect(Collectors.toList());

    assertThat(set).hasSizeLessThanOrEqualTo(5).containsExactlyInAnyOrderElementsOf(required);
    assertThat(DEPLOY).contains("terraform/examples/" + QUICK_START_EXAMPLE + "/terraform.tfvars");
  }

  @Test
  void theApisTheQuickStartEnablesAreTheOnesTheModuleNeeds() {
    List<String> required =
        TerraformFiles.MODULE.local("required_apis").stringLiterals().stream()
            .filter(s -> s.endsWith(".googleapis.com"))
            .collect(Collectors.toList());
    List<String> enabled = all(Pattern.compile("([a-z]+\\.googleapis\\.com)"), TRANSCRIPT.get(0));

    assertThat(enabled).isSubsetOf(required);
    // Everything the module always needs; compute only with a VPC or the VM.
    assertThat(enabled)
        .containsAll(
            required.stream().filter(a -> !a.startsWith("compute.")).collect(Collectors.toList()));
  }

  @Test
  void theDocsNameTheExamplesThatExist() {
    for (String example : EXAMPLES) {
      assertThat(RepoFiles.path("terraform/examples/" + example + "/terraform.tfvars.example"))
          .exists();
      HclBlock call = TerraformFiles.TREE.module("examples/" + example).blocks("module").get(0);
      assertThat(call.label(0)).isEqualTo("pubsub_clickhouse");
      assertThat(call.expr("source").literal())
          .contains(Literal.string("../../modules/pubsub-clickhouse"));
      assertThat(DEPLOY).contains("terraform/examples/" + example);
    }
    assertThat(README).contains("docs/deploy.md");
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
  void everyTerraformOutputTheDocsReadIsAnOutputOfBothExamples() {
    Pattern output = Pattern.compile("terraform(?: -chdir=\\S+)? output(?: -raw)? ([a-z_]+)");
    List<String> read = new ArrayList<>(all(output, README));
    read.addAll(all(output, DEPLOY));

    assertThat(read)
        .contains(
            "clickhouse_password_secret",
            "service_name",
            "build_service_account_email",
            "build_source_bucket");
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
  void everyBuildRunsAsTheModulesBuildAccountWithItsSourcesBucket() {
    Pattern submit = Pattern.compile("gcloud builds submit --config (\\S+)((?:\\\\\\n|[^\\n])*)");
    Matcher m = submit.matcher(DEPLOY);
    int deploys = 0;
    while (m.find()) {
      if (!m.group(1).equals("cloudbuild.yaml")) {
        continue;
      }
      deploys++;
      assertThat(m.group(2))
          .contains("--service-account=", "build_service_account_email")
          .contains("--substitutions=_REGION=")
          .contains("--gcs-source-staging-dir=gs://", "build_source_bucket");
    }
    assertThat(deploys).isPositive();
    Map<String, Object> build =
        new Yaml(new SafeConstructor(new LoaderOptions())).load(RepoFiles.read("cloudbuild.yaml"));
    @SuppressWarnings("unchecked")
    Map<String, Object> substitutions = (Map<String, Object>) build.get("substitutions");
    assertThat(TerraformFiles.MODULE.variableDefault("artifact_registry_repository_id"))
        .contains(Literal.string((String) substitutions.get("_REPOSITORY")));
  }

  @Test
  void newImagesComeFromCloudBuildOnly() {
    String rollout = section(DEPLOY, "## Roll out a new version");
    assertThat(rollout)
        .contains("gcloud builds submit")
        .doesNotContain("-var", "terraform apply -");
    assertThat(rollout).contains("keeps what the build deployed");
    // ClickHouse Cloud refuses Cloud Run's changing addresses unless its access list allows them.
    assertThat(section(DEPLOY, "## Quick start"))
        .contains("IP access list", "0.0.0.0/0", "Cloud NAT", "static address");
  }

  private static List<String> transcript() {
    String quickStart = section(RepoFiles.read("docs/deploy.md"), "## Quick start");
    int start = quickStart.indexOf("```sh\n");
    assertThat(start).as("a shell block in the quick start").isNotNegative();
    int end = quickStart.indexOf("```", start + 6);
    return quickStart
        .substring(start + 6, end)
        .lines()
        .map(String::trim)
        .filter(line -> !line.isEmpty() && !line.startsWith("#"))
        .collect(Collectors.toList());
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
