package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * cloudbuild.yaml: the Terraform checked, the tests on the images' JDK with a cached engine, then
 * both images for both architectures from a pinned base as a non-root user, then the rollout.
 */
class CloudBuildTest {
  private static final Map<String, Object> BUILD =
      new Yaml(new SafeConstructor(new LoaderOptions())).load(RepoFiles.read("cloudbuild.yaml"));
  private static final List<Step> STEPS = Step.all(BUILD);

  private static final String REGISTRY = "${_REGION}-docker.pkg.dev/$PROJECT_ID/${_REPOSITORY}/";
  private static final String PLATFORMS = "-Djib.from.platforms=linux/arm64,linux/amd64";

  /** eclipse-temurin:25-jre by the digest of its multi-arch index. */
  private static final String BASE_IMAGE = "eclipse-temurin@sha256:[0-9a-f]{64}";

  @Test
  void theTestSuiteRunsThroughCiRunOnTemurin25AfterTheTerraformCheck() {
    Step test = step("test");

    assertThat(test.image()).isEqualTo("maven:3-eclipse-temurin-25");
    assertThat(test.tokens()).containsSequence("bash", ".ci/run");
    assertThat(test.tokens()).contains("npm", "gcc", "python3", "PATH=/workspace/.tools:$$PATH");
    assertThat(test.env()).contains("CI=true");
    assertThat(test.waitFor()).contains("terraform-check", "engine-cache-restore");
  }

  @Test
  void everyMavenStepRunsTheImagesJdkWhileTheCodeStillCompilesForRelease17() {
    List<Step> maven =
        STEPS.stream().filter(s -> s.image().startsWith("maven:")).collect(Collectors.toList());

    assertThat(maven).extracting(Step::id).contains("terraform-check", "test", "install");
    assertThat(maven).extracting(Step::image).containsOnly("maven:3-eclipse-temurin-25");
    assertThat(RepoFiles.read("pom.xml"))
        .contains("<maven.compiler.release>17</maven.compiler.release>");
  }

  @Test
  void theTerraformIsFormattedAndCheckedAgainstTheProviderSchemaBeforeAnythingIsBuilt() {
    Step check = step("terraform-check");

    assertThat(check.tokens())
        .containsSequence("terraform", "fmt", "-check", "-recursive", "terraform")
        .containsSequence("mvn", "-B", "-ntp", "-pl", "infra-tests", "verify");
    assertThat(check.waitFor()).containsExactly("terraform-binary");
    assertThat(step("terraform-binary").image()).matches("hashicorp/terraform:[0-9.]+");
    assertThat(RepoFiles.read(".ci/run"))
        .contains("terraform fmt -check -recursive terraform")
        .contains("for tool in java mvn npm curl tar terraform; do");
  }

  @Test
  void theClickHouseEngineIsRestoredBeforeTheTestsAndSavedAfterThem() {
    String cache = "/workspace/.cache/pubsub-clickhouse";
    String remote = "gs://${_CACHE_BUCKET}/pubsub-clickhouse-engine";

    assertThat(step("test").env()).contains("CLICKHOUSE_LOCAL_CACHE=" + cache);
    assertThat(step("engine-cache-restore").tokens())
        .containsSequence("gcloud", "storage", "rsync", "--recursive", remote, cache);
    assertThat(step("engine-cache-save").tokens())
        .containsSequence("gcloud", "storage", "rsync", "--recursive", cache, remote);
    assertThat(step("engine-cache-save").waitFor()).containsExactly("test");
    assertThat(RepoFiles.read("scripts/clickhouse-local")).contains("CLICKHOUSE_LOCAL_CACHE");
  }

  @Test
  void bothImagesStartFromTheSamePinnedDigestOfTemurin25AndRunAsNonRoot() {
    for (String pom : List.of("function/pom.xml", "backfill-job/pom.xml")) {
      String text = RepoFiles.read(pom);
      String jib = text.substring(text.indexOf("<artifactId>jib-maven-plugin</artifactId>"));

      assertThat(jib)
          .as(pom)
          .containsPattern("<from>\\s*(<!--[^>]*-->\\s*)?<image>" + BASE_IMAGE + "</image>")
          .contains("25-jre")
          .containsPattern("<user>[1-9][0-9]*:[1-9][0-9]*</user>");
    }
  }

  @Test
  void theFunctionImageIsBuiltForLinuxArm64AndLinuxAmd64() {
    Step step = jibStepFor("function");

    assertThat(step.tokens())
        .contains(
            PLATFORMS, "-Djib.to.image=" + REGISTRY + "pubsub-clickhouse-function:$SHORT_SHA");
  }

  @Test
  void theBackfillImageIsBuiltForLinuxArm64AndLinuxAmd64() {
    Step step = jibStepFor("backfill-job");

    assertThat(step.tokens())
        .contains(
            PLATFORMS, "-Djib.to.image=" + REGISTRY + "pubsub-clickhouse-backfill:$SHORT_SHA");
  }

  @Test
  void imagesAreBuiltOnlyAfterTheTestsPassed() {
    for (String module : List.of("function", "backfill-job")) {
      Step image = jibStepFor(module);
      assertThat(image.waitFor()).containsExactlyInAnyOrder("install", "registry-token");
    }
    assertThat(step("install").waitFor()).containsExactly("test");
    assertThat(step("registry-token").waitFor()).containsExactly("test");
  }

  @Test
  void theDeployStepRollsBothImagesOut() {
    Step deploy = step("deploy");

    assertThat(deploy.tokens())
        .containsSequence("gcloud", "run", "deploy", "${_SERVICE}")
        .containsSequence("gcloud", "run", "jobs", "update", "${_JOB}")
        .contains(
            "--image=" + REGISTRY + "pubsub-clickhouse-function:$SHORT_SHA",
            "--image=" + REGISTRY + "pubsub-clickhouse-backfill:$SHORT_SHA",
            "--region=${_REGION}");
    assertThat(deploy.waitFor()).containsExactlyInAnyOrder("image-function", "image-backfill");
  }

  @Test
  void substitutionsNameTheRegionRepositoryServiceAndJob() {
    @SuppressWarnings("unchecked")
    Map<String, Object> substitutions = (Map<String, Object>) BUILD.get("substitutions");

    assertThat(substitutions)
        .containsKeys("_REGION", "_REPOSITORY", "_SERVICE", "_JOB", "_DEPLOY", "_CACHE_BUCKET");
    assertThat(substitutions.get("_REPOSITORY")).isEqualTo("pubsub-clickhouse");
    // ${PROJECT_ID} in a substitution's value needs dynamic substitutions.
    assertThat(substitutions.get("_CACHE_BUCKET")).isEqualTo("${PROJECT_ID}_cloudbuild");
    @SuppressWarnings("unchecked")
    Map<String, Object> options = (Map<String, Object>) BUILD.get("options");
    assertThat(options.get("dynamicSubstitutions")).isEqualTo(true);
  }

  private static Step jibStepFor(String module) {
    List<Step> found =
        STEPS.stream()
            .filter(s -> s.tokens().contains("com.google.cloud.tools:jib-maven-plugin:build"))
            .filter(s -> String.join(" ", s.tokens()).contains("-pl " + module + " "))
            .collect(Collectors.toList());
    assertThat(found).as("Jib steps for -pl " + module).hasSize(1);
    return found.get(0);
  }

  private static Step step(String id) {
    return STEPS.stream()
        .filter(s -> id.equals(s.id()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no step " + id));
  }

  /** A build step: its id, image, environment, what it waits for, its words. */
  record Step(
      String id, String image, List<String> env, List<String> waitFor, List<String> tokens) {
    @SuppressWarnings("unchecked")
    static List<Step> all(Map<String, Object> build) {
      List<Map<String, Object>> steps = (List<Map<String, Object>>) build.get("steps");
      return steps.stream()
          .map(
              s -> {
                StringBuilder command = new StringBuilder();
                command.append(s.getOrDefault("entrypoint", "")).append(' ');
                for (Object arg : (List<Object>) s.getOrDefault("args", List.of())) {
                  command.append(arg).append(' ');
                }
                String joined = command.toString().replace("\\\n", " ");
                List<String> tokens =
                    Arrays.stream(joined.split("\\s+"))
                        .map(t -> t.replace("\"", ""))
                        .filter(t -> !t.isEmpty())
                        .collect(Collectors.toList());
                return new Step(
                    (String) s.get("id"),
                    (String) s.get("name"),
                    (List<String>) s.getOrDefault("env", List.of()),
                    (List<String>) s.getOrDefault("waitFor", List.of()),
                    tokens);
              })
          .collect(Collectors.toList());
    }
  }
}
