package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The apply builds the images itself (build.tf): after the repository, the build account and its
 * grants exist, it runs cloudbuild.yaml as that account with the module's region and a tag of its
 * own, and creates the service and the jobs only afterwards, from the images that tag names.
 */
class ApplyBuildTest {
  private static final HclBlock IMAGES = TerraformFiles.MODULE.resource("terraform_data", "images");
  private static final String SCRIPT = TerraformFiles.MODULE_DIR + "/templates/build-images.sh";
  private static final String ROLL_OUT =
      TerraformFiles.MODULE_DIR + "/templates/roll-out-images.sh";
  private static final String REGISTRY = "europe-west1-docker.pkg.dev/the-project/the-repo";

  @TempDir Path dir;

  @Test
  void theApplyRunsTheBuildAsTheModulesBuildAccountAfterItsGrants() {
    HclBlock exec = IMAGES.block("provisioner");

    assertThat(exec.label(0)).isEqualTo("local-exec");
    assertThat(exec.expr("command").text())
        .isEqualTo("file(\"${path.module}/templates/build-images.sh\")");
    assertThat(exec.expr("working_dir").references()).containsExactly("local.repository_root");
    Map<String, String> environment = new LinkedHashMap<>();
    for (String name : exec.expr("environment").objectKeys()) {
      environment.put(
          name, String.join(" ", exec.expr("environment").objectEntry(name).get().references()));
    }
    assertThat(environment)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "PROJECT", "var.project_id",
                "REGION", "var.region",
                "REPOSITORY", "var.artifact_registry_repository_id",
                "SERVICE", "local.service_name",
                "JOB", "local.job_name",
                "TAG", "local.image_tag",
                "BUILD_ACCOUNT", "google_service_account.build.email",
                "SOURCE_BUCKET", "google_storage_bucket.build_sources.name"));
    assertThat(IMAGES.expr("triggers_replace").references()).contains("local.image_tag");
    // Every grant the build uses exists first, and the runtime accounts' secret grants too: the
    // build's minutes let them take effect before Cloud Run checks them.
    assertThat(IMAGES.expr("depends_on").references())
        .contains(
            "google_artifact_registry_repository_iam_member.build_writer",
            "google_storage_bucket_iam_member.build_source_reader",
            "google_project_iam_member.build_log_writer",
            "google_service_account_iam_member.build_acts_as_runtime",
            "google_secret_manager_secret_iam_member.service_password_accessor",
            "google_secret_manager_secret_iam_member.backfill_password_accessor");
    assertThat(
            TerraformFiles.MODULE
                .resource("google_storage_bucket_iam_member", "build_source_reader")
                .expr("bucket")
                .references())
        .containsExactly("google_storage_bucket.build_sources.name");
  }

  @Test
  void theServiceAndTheJobsComeFromTheImagesOfTheApplysExactTag() {
    for (String image : List.of("function", "backfill")) {
      HclBlock data =
          TerraformFiles.MODULE.blocks("data").stream()
              .filter(
                  b -> b.labels().equals(List.of("google_artifact_registry_docker_image", image)))
              .findFirst()
              .orElseThrow();
      assertThat(data.expr("image_name").text())
          .isEqualTo("\"pubsub-clickhouse-" + image + ":${local.image_tag}\"");
      assertThat(data.expr("depends_on").references()).contains("terraform_data.images");
    }
    assertThat(TerraformFiles.MODULE.local("image_tag").references())
        .containsOnly("var.image_tag", "local.source_image_tag");
    assertThat(
            TerraformFiles.MODULE
                .resource("google_cloud_run_v2_job", "create_tables")
                .expr("depends_on")
                .references())
        .contains("terraform_data.images");
  }

  @Test
  void theScriptSubmitsTheBuildWithTheModulesValuesFromTheRepositorysRoot() throws IOException {
    List<String> calls = runScript(false);

    String registry = "europe-west1-docker.pkg.dev/the-project/the-repo";
    assertThat(calls)
        .containsExactly(
            "artifacts docker images describe "
                + registry
                + "/pubsub-clickhouse-function:0123456789abcdef --project=the-project",
            "builds submit . --project=the-project --config=cloudbuild.yaml"
                + " --service-account=projects/the-project/serviceAccounts/"
                + "the-build@the-project.iam.gserviceaccount.com"
                + " --gcs-source-staging-dir=gs://the-bucket/source"
                + " --substitutions=_REGION=europe-west1,_REPOSITORY=the-repo,_SERVICE=the-service,"
                + "_JOB=the-job,_TAG=0123456789abcdef");
  }

  @Test
  void theScriptBuildsNothingWhenBothImagesOfTheTagAreThere() throws IOException {
    // Tags are immutable: pushing the tag again would fail the build.
    assertThat(runScript(true))
        .hasSize(2)
        .allMatch(call -> call.startsWith("artifacts docker images describe "));
  }

  @Test
  void afterTheServiceAndTheJobTheApplyPutsTheImagesOfItsTagOnThem() throws IOException {
    // The service ignores image changes, so an update planned before the build would otherwise
    // leave the old image on it.
    HclBlock rollout = TerraformFiles.MODULE.resource("terraform_data", "rollout");
    HclBlock exec = rollout.block("provisioner");
    assertThat(exec.expr("command").text())
        .isEqualTo("file(\"${path.module}/templates/roll-out-images.sh\")");
    assertThat(exec.expr("environment").objectEntry("SERVICE_IMAGE").orElseThrow().references())
        .containsExactly("local.service_image");
    assertThat(exec.expr("environment").objectEntry("JOB_IMAGE").orElseThrow().references())
        .contains("local.backfill_image");
    assertThat(rollout.expr("triggers_replace").references()).containsExactly("local.image_tag");
    assertThat(rollout.expr("depends_on").references())
        .contains(
            "terraform_data.images",
            "google_cloud_run_v2_service.ingest",
            "google_cloud_run_v2_job.backfill");

    assertThat(rollOut("new"))
        .containsExactly(
            "run services describe the-service --project=the-project --region=europe-west1"
                + " --format=value(spec.template.spec.containers[0].image)",
            "run jobs describe the-job --project=the-project --region=europe-west1"
                + " --format=value(spec.template.spec.template.spec.containers[0].image)");
    assertThat(rollOut("old"))
        .contains(
            "run services update the-service --project=the-project --region=europe-west1"
                + " --container=ingest --image="
                + REGISTRY
                + "/pubsub-clickhouse-function@sha256:new",
            "run jobs update the-job --project=the-project --region=europe-west1 --image="
                + REGISTRY
                + "/pubsub-clickhouse-backfill@sha256:new")
        .hasSize(4);
  }

  @Test
  void theTagFollowsTheImagesMainSourcesAndNothingElse() throws IOException {
    Path repo = dir.resolve("repo");
    for (String file :
        List.of(
            "cloudbuild.yaml",
            "pom.xml",
            "core/pom.xml",
            "core/src/main/java/A.java",
            "core/src/test/java/ATest.java",
            "messages/pom.xml",
            "function/pom.xml",
            "function/src/main/resources/x.properties",
            "backfill-job/pom.xml",
            "scripts/aot-cache",
            "scripts/aot-cache-inputs",
            "scripts/benchsuite/aotcache.py",
            "scripts/bench",
            "replay/src/main/java/R.java",
            "docs/deploy.md")) {
      Files.createDirectories(repo.resolve(file).getParent());
      Files.writeString(repo.resolve(file), file);
    }
    Path module = dir.resolve("module");
    Files.createDirectories(module);
    Files.writeString(
        module.resolve("main.tf"),
        "variable \"build_images\" {\n  default = true\n}\n"
            + "variable \"image_tag\" {\n  default = null\n}\n"
            + "locals {\n  repository_root = \""
            + repo
            + "\"\n  image_source_files = "
            + TerraformFiles.MODULE.local("image_source_files").text()
            + "\n  source_image_tag = "
            + TerraformFiles.MODULE.local("source_image_tag").text()
            + "\n}\n");

    assertThat(LocalTools.console(module, "join(\",\", local.image_source_files)", Map.of()))
        .isEqualTo(
            "\"backfill-job/pom.xml,cloudbuild.yaml,core/pom.xml,core/src/main/java/A.java,"
                + "function/pom.xml,function/src/main/resources/x.properties,messages/pom.xml,"
                + "pom.xml,scripts/aot-cache,scripts/aot-cache-inputs,"
                + "scripts/benchsuite/aotcache.py\"");
    String tag = LocalTools.console(module, "local.source_image_tag", Map.of());
    assertThat(tag).matches("\"[0-9a-f]{16}\"");
    Files.writeString(repo.resolve("core/src/test/java/ATest.java"), "changed");
    Files.writeString(repo.resolve("docs/deploy.md"), "changed");
    Files.writeString(repo.resolve("scripts/bench"), "changed");
    assertThat(LocalTools.console(module, "local.source_image_tag", Map.of())).isEqualTo(tag);
    Files.writeString(repo.resolve("core/src/main/java/A.java"), "changed");
    String changed = LocalTools.console(module, "local.source_image_tag", Map.of());
    assertThat(changed).isNotEqualTo(tag);
    // The training and the check of the function image's AOT cache are part of its making.
    Files.writeString(repo.resolve("scripts/aot-cache-inputs"), "changed");
    assertThat(LocalTools.console(module, "local.source_image_tag", Map.of()))
        .isNotEqualTo(changed);
    // Images built elsewhere need no sources: nothing is read when the apply does not build.
    try (java.util.stream.Stream<Path> files = Files.walk(repo)) {
      for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
    assertThat(LocalTools.console(module, "local.source_image_tag", Map.of("image_tag", "abc")))
        .isEqualTo("null");
  }

  @Test
  void theSourcesAreThoseOfEveryModuleTheImagesAreBuiltFrom() {
    // cloudbuild.yaml builds with -pl function,backfill-job -am: those two and every module of
    // the repository they depend on outside the test scope.
    Set<String> modules = new java.util.TreeSet<>();
    List<String> pending = new ArrayList<>(List.of("function", "backfill-job"));
    Pattern dependency =
        Pattern.compile(
            "<dependency>\\s*<groupId>dev\\.pubsubclickhouse</groupId>\\s*"
                + "<artifactId>([a-z-]+)</artifactId>(?:(?!</dependency>).)*</dependency>",
            Pattern.DOTALL);
    while (!pending.isEmpty()) {
      String module = pending.remove(0);
      if (!modules.add(module)) {
        continue;
      }
      Matcher m = dependency.matcher(RepoFiles.read(module + "/pom.xml"));
      while (m.find()) {
        if (!m.group().contains("<scope>test</scope>")) {
          pending.add(m.group(1));
        }
      }
    }
    assertThat(modules).containsExactly("backfill-job", "core", "function", "messages");
    assertThat(TerraformFiles.MODULE.local("image_source_files").stringLiterals())
        .containsAll(modules)
        .contains("cloudbuild.yaml", "pom.xml");
  }

  /** The build script with a stand-in gcloud that records its arguments; the calls it made. */
  private List<String> runScript(boolean imagesExist) throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PROJECT", "the-project");
    env.put("REGION", "europe-west1");
    env.put("REPOSITORY", "the-repo");
    env.put("SERVICE", "the-service");
    env.put("JOB", "the-job");
    env.put("TAG", "0123456789abcdef");
    env.put("BUILD_ACCOUNT", "the-build@the-project.iam.gserviceaccount.com");
    env.put("SOURCE_BUCKET", "the-bucket");
    return run(
        SCRIPT,
        env,
        "case \"$1 $2\" in \"artifacts docker\") exit " + (imagesExist ? 0 : 1) + ";; esac\n");
  }

  /** The roll-out script, with a service and a job that run {@code running}; the calls made. */
  private List<String> rollOut(String running) throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PROJECT", "the-project");
    env.put("REGION", "europe-west1");
    env.put("SERVICE", "the-service");
    env.put("SERVICE_IMAGE", REGISTRY + "/pubsub-clickhouse-function@sha256:new");
    env.put("JOB", "the-job");
    env.put("JOB_IMAGE", REGISTRY + "/pubsub-clickhouse-backfill@sha256:new");
    return run(
        ROLL_OUT,
        env,
        "case \"$1 $2 $3\" in\n"
            + "  \"run services describe\") echo \""
            + REGISTRY
            + "/pubsub-clickhouse-function@sha256:"
            + running
            + "\" ;;\n"
            + "  \"run jobs describe\") echo \""
            + REGISTRY
            + "/pubsub-clickhouse-backfill@sha256:"
            + running
            + "\" ;;\n"
            + "esac\n");
  }

  /** Runs {@code script} with sh and a stand-in gcloud ({@code behaviour}) that logs each call. */
  private List<String> run(String script, Map<String, String> env, String behaviour)
      throws IOException {
    Path bin = dir.resolve("bin");
    Files.createDirectories(bin);
    Path log = dir.resolve("gcloud.log");
    Files.deleteIfExists(log);
    Files.createFile(log);
    Path gcloud = bin.resolve("gcloud");
    Files.writeString(gcloud, "#!/bin/sh\necho \"$*\" >> \"" + log + "\"\n" + behaviour);
    assertThat(gcloud.toFile().setExecutable(true)).isTrue();
    Map<String, String> all = new LinkedHashMap<>(env);
    all.put("PATH", bin + ":" + System.getenv("PATH"));

    LocalTools.Result result =
        LocalTools.run(
            RepoFiles.root(), "", all, LocalTools.require("sh"), "-c", RepoFiles.read(script));

    assertThat(result.exitCode()).as(result.err()).isZero();
    return Files.readAllLines(log);
  }
}
