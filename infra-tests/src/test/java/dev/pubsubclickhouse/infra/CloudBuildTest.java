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

/** cloudbuild.yaml: tests first, then both images for both architectures, then the rollout. */
class CloudBuildTest {
  private static final Map<String, Object> BUILD =
      new Yaml(new SafeConstructor(new LoaderOptions())).load(RepoFiles.read("cloudbuild.yaml"));
  private static final List<Step> STEPS = Step.all(BUILD);

  private static final String REGISTRY = "${_REGION}-docker.pkg.dev/$PROJECT_ID/${_REPOSITORY}/";
  private static final String PLATFORMS = "-Djib.from.platforms=linux/arm64,linux/amd64";

  @Test
  void theTestSuiteRunsFirstThroughCiRun() {
    Step test = STEPS.get(0);

    assertThat(test.id()).isEqualTo("test");
    assertThat(test.tokens()).containsSequence("bash", ".ci/run");
    assertThat(test.tokens()).contains("npm", "gcc");
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
    int test = STEPS.indexOf(step("test"));
    for (String module : List.of("function", "backfill-job")) {
      Step image = jibStepFor(module);
      assertThat(STEPS.indexOf(image)).isGreaterThan(test);
      // "-" would start the step at once, in parallel with the tests.
      assertThat(image.waitFor()).isNotEmpty().doesNotContain("-");
    }
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

    assertThat(substitutions).containsKeys("_REGION", "_REPOSITORY", "_SERVICE", "_JOB");
    assertThat(substitutions.get("_REPOSITORY")).isEqualTo("pubsub-clickhouse");
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

  /** A build step: its id, what it waits for, and its command line split into words. */
  record Step(String id, List<String> waitFor, List<String> tokens) {
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
                    (List<String>) s.getOrDefault("waitFor", List.of()),
                    tokens);
              })
          .collect(Collectors.toList());
    }
  }
}
