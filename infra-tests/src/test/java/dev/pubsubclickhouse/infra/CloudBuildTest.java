package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * cloudbuild-ci.yaml checks the Terraform and runs the tests; cloudbuild.yaml builds both images
 * for both architectures from a pinned base as a non-root user, without the tests, into a
 * repository of immutable tags, records their provenance and deploys them by digest. What Cloud
 * Build itself does with these files (its duration, the attachment, the repository refusing to move
 * a tag) can only be checked here as text.
 */
class CloudBuildTest {
  private static final Map<String, Object> BUILD = load("cloudbuild.yaml");
  private static final List<Step> STEPS = Step.all(BUILD);
  private static final Map<String, Object> CI = load("cloudbuild-ci.yaml");
  private static final List<Step> CI_STEPS = Step.all(CI);

  private static final String REGISTRY = "${_REGION}-docker.pkg.dev/$PROJECT_ID/${_REPOSITORY}/";
  private static final String PLATFORMS = "-Djib.from.platforms=linux/arm64,linux/amd64";

  /** eclipse-temurin:25-jre by the digest of its multi-arch index. */
  private static final String BASE_IMAGE = "eclipse-temurin@sha256:[0-9a-f]{64}";

  @Test
  void theTestSuiteRunsInTheCiBuildThroughCiRunOnTemurin25AfterTheTerraformCheck() {
    Step test = step(CI_STEPS, "test");

    assertThat(test.image()).isEqualTo("maven:3-eclipse-temurin-25");
    assertThat(test.tokens()).containsSequence("bash", ".ci/run");
    assertThat(test.tokens()).contains("npm", "gcc", "python3", "PATH=/workspace/.tools:$$PATH");
    assertThat(test.env()).contains("CI=true");
    assertThat(test.waitFor()).contains("terraform-check", "engine-cache-restore");
    assertThat(CI_STEPS).noneMatch(s -> s.tokens().toString().contains("jib-maven-plugin"));
  }

  /** Cloud Build's own substitutions (cloud.google.com/build/docs/configuring-builds). */
  private static final Set<String> BUILT_IN_SUBSTITUTIONS =
      Set.of(
          "PROJECT_ID",
          "BUILD_ID",
          "PROJECT_NUMBER",
          "LOCATION",
          "TRIGGER_NAME",
          "COMMIT_SHA",
          "REVISION_ID",
          "SHORT_SHA",
          "REPO_NAME",
          "REPO_FULL_NAME",
          "BRANCH_NAME",
          "TAG_NAME",
          "REF_NAME",
          "TRIGGER_BUILD_CONFIG_PATH",
          "SERVICE_ACCOUNT_EMAIL",
          "SERVICE_ACCOUNT",
          "_HEAD_BRANCH",
          "_BASE_BRANCH",
          "_HEAD_REPO_URL",
          "_PR_NUMBER");

  @Test
  void everyDollarInAStepIsASubstitutionOrEscapedForTheShell() {
    // Cloud Build substitutes $NAME and ${NAME} in a step's words, comments of its bash included,
    // and refuses a build that names one it does not know; the shell's own $ is written $$. The
    // step's bash run against a stand-in docker (scripts/tests) cannot tell: it unescapes $$ and
    // runs whatever is left.
    Pattern dollar =
        Pattern.compile("\\$(\\{([A-Za-z_][A-Za-z0-9_]*)\\}|([A-Za-z_][A-Za-z0-9_]*)|.?)");
    for (Map<String, Object> build : List.of(BUILD, CI)) {
      @SuppressWarnings("unchecked")
      Set<String> known =
          new HashSet<>(((Map<String, Object>) build.get("substitutions")).keySet());
      known.addAll(BUILT_IN_SUBSTITUTIONS);
      for (Step step : Step.all(build)) {
        String words = String.join(" ", step.tokens()) + " " + String.join(" ", step.env());
        Matcher m = dollar.matcher(words.replace("$$", ""));
        while (m.find()) {
          String name = m.group(2) != null ? m.group(2) : m.group(3);
          assertThat(name).as(step.id() + ": " + m.group()).isNotNull().isIn(known);
        }
      }
    }
  }

  @Test
  void theDeployBuildRunsNoTest() {
    for (Step step : STEPS) {
      List<String> tokens = step.tokens();
      assertThat(tokens).as(step.id()).doesNotContain(".ci/run", "verify", "test");
      if (tokens.contains("mvn")) {
        assertThat(tokens).as(step.id()).contains("-DskipTests");
      }
    }
    assertThat(STEPS).extracting(Step::id).doesNotContain("test", "terraform-check");
  }

  @Test
  void everyMavenStepRunsTheImagesJdkWhileTheCodeStillCompilesForRelease17() {
    List<Step> maven = new ArrayList<>(STEPS);
    maven.addAll(CI_STEPS);
    maven.removeIf(s -> !s.image().startsWith("maven:"));

    assertThat(maven).extracting(Step::id).contains("terraform-check", "test", "install");
    assertThat(maven).extracting(Step::image).containsOnly("maven:3-eclipse-temurin-25");
    assertThat(RepoFiles.read("pom.xml"))
        .contains("<maven.compiler.release>17</maven.compiler.release>");
  }

  @Test
  void theTerraformIsFormattedAndCheckedAgainstTheProviderSchemaInCi() {
    Step check = step(CI_STEPS, "terraform-check");

    assertThat(check.tokens())
        .containsSequence("terraform", "fmt", "-check", "-recursive", "terraform")
        .containsSequence("mvn", "-B", "-ntp", "-pl", "infra-tests", "verify");
    assertThat(check.waitFor()).containsExactly("terraform-binary");
    assertThat(step(CI_STEPS, "terraform-binary").image()).matches("hashicorp/terraform:[0-9.]+");
    assertThat(RepoFiles.read(".ci/run"))
        .contains("terraform fmt -check -recursive terraform")
        .contains("for tool in java mvn npm curl tar terraform; do");
  }

  @Test
  void theClickHouseEngineIsRestoredBeforeTheTestsAndSavedAfterThem() {
    String cache = "/workspace/.cache/pubsub-clickhouse";
    String remote = "gs://${_CACHE_BUCKET}/pubsub-clickhouse-engine";

    assertThat(step(CI_STEPS, "test").env()).contains("CLICKHOUSE_LOCAL_CACHE=" + cache);
    assertThat(step(CI_STEPS, "engine-cache-restore").tokens())
        .containsSequence("gcloud", "storage", "rsync", "--recursive", remote, cache);
    assertThat(step(CI_STEPS, "engine-cache-save").tokens())
        .containsSequence("gcloud", "storage", "rsync", "--recursive", cache, remote);
    assertThat(step(CI_STEPS, "engine-cache-save").waitFor()).containsExactly("test");
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
  void eachImageIsBuiltForLinuxArm64AndLinuxAmd64AndTaggedWithTheApplysTagOrTheBuildsOwnId() {
    // A tag names one image for good (the repository's tags are immutable): the apply's tag is a
    // hash of the sources (it skips the build when that tag exists), and a build by hand gets its
    // build id, new for every build, where a commit's short hash repeats when built twice.
    // The function's tag names the manifest list with the AOT cache (aot-function); Jib's image
    // under it gets a tag of its own.
    assertThat(jibStepFor("backfill-job").tokens())
        .containsSequence("tag=${_TAG}", "if", "[", "-z", "$$tag", "];", "then")
        .contains("tag=$BUILD_ID;")
        .contains(PLATFORMS, "-Djib.to.image=" + REGISTRY + "pubsub-clickhouse-backfill:$$tag");
    assertThat(jibStepFor("function").tokens())
        .contains(
            PLATFORMS, "-Djib.to.image=" + REGISTRY + "pubsub-clickhouse-function:$BUILD_ID-jib");
    assertThat(step(STEPS, "aot-function").tokens())
        .containsSequence("tag=${_TAG}", "if", "[", "-z", "$$tag", "];", "then")
        .contains("tag=$BUILD_ID;")
        .contains("image=" + REGISTRY + "pubsub-clickhouse-function")
        .containsSequence("docker", "manifest", "create", "$$image:$$tag");
    assertThat(RepoFiles.read("cloudbuild.yaml")).doesNotContain("SHORT_SHA", ":latest");
  }

  @Test
  void theFunctionImageCarriesAnAotCacheTrainedOnJibsImageAndCheckedBeforeItIsPushed() {
    Step aot = step(STEPS, "aot-function");
    List<String> tokens = aot.tokens();

    assertThat(aot.waitFor()).containsExactly("image-function");
    // Packaged: a class path of jars only (the JVM makes no AOT cache for one with a directory).
    assertThat(jibStepFor("function").tokens()).contains("package");
    assertThat(RepoFiles.read("function/pom.xml"))
        .contains("<containerizingMode>packaged</containerizingMode>");
    assertThat(tokens)
        .containsSequence("for", "arch", "in", "amd64", "arm64;", "do")
        .contains("jib=$$image@$$(cat", "function/target/jib-image.digest)")
        .containsSequence("--privileged", "--rm", "tonistiigi/binfmt:qemu-v8.1.5")
        .containsSequence("scripts/aot-cache", "train")
        .containsSequence("--", "$$run", "--memory", "1g", "--name", "aot-train-$$arch", "$$source")
        // The thin image starts from the very image the cache was trained on.
        .containsSequence("FROM", "$$source")
        .containsSequence("scripts/aot-cache", "check")
        .contains("--trained-inputs", "$$work/carried.inputs", "--inputs", "$$work/checked.inputs")
        .containsSequence(
            "$$run",
            "--memory",
            "512m",
            "--rm",
            "--name",
            "aot-check-$$arch",
            "$$image:$BUILD_ID-$$arch");
    // bash -e: a stale cache fails the check, the step and the build before anything is pushed.
    assertThat(aot.tokens().get(0)).isEqualTo("bash");
    assertThat(String.join(" ", tokens))
        .contains("-ceu")
        .containsSubsequence(
            "scripts/aot-cache train",
            "docker build",
            "scripts/aot-cache check",
            "docker push $$image:$BUILD_ID-$$arch",
            "docker manifest create",
            "docker manifest push --purge $$image:$$tag | tail -n 1 > function/target/image.digest");
  }

  @Test
  void theDocsSayWhichOfTheFunctionsImagesIsTheOneToDeploy() {
    // A build pushes the function's final list under its tag, and the list's parts under tags of
    // their own: Jib's image without the cache, and one image per architecture (an Arm node cannot
    // run the amd64 one). "The function image's digest" leaves the pick to chance.
    assertThat(String.join(" ", step(STEPS, "aot-function").tokens()))
        .contains("docker push $$image:$BUILD_ID-$$arch");
    assertThat(RepoFiles.read("docs/deploy.md"))
        .contains("`BUILD_ID-jib`", "`BUILD_ID-amd64`", "`BUILD_ID-arm64`");
    assertThat(RepoFiles.read("docs/gke.md"))
        .contains("pubsub-clickhouse-function:BUILD_ID ", "image_summary.fully_qualified_digest");
  }

  @Test
  void theRepositoryIsTerraformsWithImmutableTagsAndTheBuildOnlyPushesToIt() {
    // The apply makes the repository and grants the build account, then runs the build
    // (ApplyBuildTest): no build creates a repository, no example adopts one.
    assertThat(STEPS).noneMatch(s -> String.join(" ", s.tokens()).contains("repositories create"));
    HclBlock images =
        TerraformFiles.MODULE.resource("google_artifact_registry_repository", "images");
    assertThat(images.block("docker_config").expr("immutable_tags").literal())
        .contains(Literal.bool(true));
    for (String example : List.of("clickhouse-cloud", "clickhouse-vm")) {
      assertThat(TerraformFiles.TREE.module("examples/" + example).blocks("import")).isEmpty();
    }
  }

  @Test
  void theDeployStepRollsBothImagesOutByDigestOnceTheyExist() {
    Step deploy = step(STEPS, "deploy");

    assertThat(deploy.tokens())
        .containsSequence("gcloud", "run", "deploy", "${_SERVICE}")
        .containsSequence("gcloud", "run", "jobs", "update", "${_JOB}")
        .contains(
            "--image=$$registry/pubsub-clickhouse-function@$$(cat",
            "function/target/image.digest)",
            "--image=$$registry/pubsub-clickhouse-backfill@$$(cat",
            "backfill-job/target/image.digest)",
            "--region=${_REGION}");
    // The final digests: the function's with its AOT cache, the backfill's as Jib pushed it.
    // Only the step that builds on Jib's function image reads Jib's digest of it.
    assertThat(step(STEPS, "image-backfill").tokens())
        .containsSequence(
            "cp", "backfill-job/target/jib-image.digest", "backfill-job/target/image.digest");
    for (Step step : STEPS) {
      if (!step.id().equals("aot-function")) {
        assertThat(step.tokens()).as(step.id()).noneMatch(t -> t.contains("function/target/jib"));
      }
    }
    assertThat(deploy.tokens()).noneMatch(t -> t.startsWith("--image=") && t.contains(":$"));
    // Before the first terraform apply there is nothing to update: the build only pushes.
    assertThat(deploy.tokens()).containsSequence("gcloud", "run", "services", "describe");
    assertThat(deploy.waitFor()).containsExactly("provenance");
  }

  @Test
  void eachImagesProvenanceIsAttachedToItsDigest() {
    Step provenance = step(STEPS, "provenance");

    assertThat(provenance.waitFor()).containsExactlyInAnyOrder("aot-function", "image-backfill");
    assertThat(provenance.tokens())
        .contains("digest=$$(cat", "$$module/target/image.digest)")
        .containsSequence("gcloud", "artifacts", "attachments", "create")
        .contains(
            "--target=$$image@$$digest",
            "--attachment-type=application/vnd.in-toto+json",
            "https://slsa.dev/provenance/v1,");
  }

  @Test
  void substitutionsNameTheRegionRepositoryServiceAndJob() {
    @SuppressWarnings("unchecked")
    Map<String, Object> substitutions = (Map<String, Object>) BUILD.get("substitutions");

    assertThat(substitutions)
        .containsOnlyKeys("_REGION", "_REPOSITORY", "_SERVICE", "_JOB", "_TAG");
    assertThat(substitutions.get("_TAG")).isEqualTo("");
    assertThat(substitutions.get("_REPOSITORY")).isEqualTo("pubsub-clickhouse");
    @SuppressWarnings("unchecked")
    Map<String, Object> ci = (Map<String, Object>) CI.get("substitutions");
    // ${PROJECT_ID} in a substitution's value needs dynamic substitutions.
    assertThat(ci.get("_CACHE_BUCKET")).isEqualTo("${PROJECT_ID}_cloudbuild");
    @SuppressWarnings("unchecked")
    Map<String, Object> options = (Map<String, Object>) CI.get("options");
    assertThat(options.get("dynamicSubstitutions")).isEqualTo(true);
  }

  private static Map<String, Object> load(String file) {
    return new Yaml(new SafeConstructor(new LoaderOptions())).load(RepoFiles.read(file));
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

  private static Step step(List<Step> steps, String id) {
    return steps.stream()
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
