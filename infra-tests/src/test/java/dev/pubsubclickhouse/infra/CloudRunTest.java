package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.HclFile;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The module's run.tf and job.tf: images, environment, the password, probes, size. */
class CloudRunTest {
  private static final TerraformConfig TF = TerraformFiles.MODULE;
  private static final HclBlock SERVICE = TF.resource("google_cloud_run_v2_service", "ingest");
  private static final HclBlock JOB = TF.resource("google_cloud_run_v2_job", "backfill");

  /** registry/path:tag or registry/path@sha256:digest, or a well-known registry host. */
  private static final Pattern IMAGE_LIKE =
      Pattern.compile(
          "(docker\\.pkg\\.dev|gcr\\.io|docker\\.io)"
              + "|^[a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+(:[A-Za-z0-9._-]+|@sha256:[0-9a-f]+)$");

  /** Where the service and the backfill job both write, besides CLICKHOUSE_PASSWORD. */
  private static final List<String> CLICKHOUSE_SETTINGS =
      List.of(
          "CLICKHOUSE_URL",
          "CLICKHOUSE_DATABASE",
          "CLICKHOUSE_TABLE",
          "CLICKHOUSE_USER",
          "CLICKHOUSE_DEAD_LETTER_TABLE");

  /** What the application reads (DESIGN.md, Configuration), besides CLICKHOUSE_PASSWORD. */
  private static final Set<String> SERVICE_SETTINGS =
      with(
          CLICKHOUSE_SETTINGS,
          "DEAD_LETTER_TOPIC",
          "BATCH_MAX_ROWS",
          "BATCH_MAX_BYTES",
          "BATCH_MAX_WAIT_MS",
          "ANSWER_TIMEOUT_MS",
          "MAX_INSERT_BLOCK_SIZE",
          "MAX_RETRIES",
          "INSERT_DEDUPLICATE",
          "INSERT_QUORUM",
          "INSERT_DISTRIBUTED_SYNC",
          "ASYNC_INSERT",
          "CLICKHOUSE_SETTINGS",
          "PUSH_UNWRAPPED",
          "PUSH_AUDIENCE",
          "PUSH_AUTH",
          "PUSH_SERVICE_ACCOUNT",
          "CREATE_DEAD_LETTER_TABLE",
          "CLICKHOUSE_TABLES",
          "CLICKHOUSE_TABLE_ATTRIBUTE",
          "SCHEMA_EVOLUTION",
          "UNKNOWN_FIELDS_COLUMN",
          "GOOGLE_CLOUD_PROJECT",
          "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
          "OTEL_RESOURCE_ATTRIBUTES");

  /** What the backfill job reads, besides CLICKHOUSE_PASSWORD. */
  private static final Set<String> JOB_SETTINGS =
      with(
          CLICKHOUSE_SETTINGS,
          "INPUT_TABLE_SPEC",
          "QUERY",
          "OUTPUT_DEADLETTER_TABLE",
          "OUTPUT_DEADLETTER_DATASET",
          "GOOGLE_CLOUD_PROJECT");

  /** {@code shared} and {@code more} as one set, which refuses a name given twice. */
  private static Set<String> with(List<String> shared, String... more) {
    List<String> all = new ArrayList<>(shared);
    all.addAll(List.of(more));
    return Set.of(all.toArray(String[]::new));
  }

  @Test
  void everyImageComesFromAVariable() {
    List<String> problems = new ArrayList<>();
    for (String file : List.of("run.tf", "job.tf")) {
      for (HclBlock top : TF.file(file).blocks()) {
        for (HclBlock.Nested nested : top.nestedAttributes()) {
          if (nested.attribute().name().equals("image") && !imageFromVariable(nested)) {
            problems.add(
                nested.attribute().location() + ": image = " + nested.attribute().value().text());
          }
        }
      }
    }

    assertThat(problems).isEmpty();
    assertThat(SERVICE.block("template").blocks("containers").get(0).expr("image").references())
        .containsExactly("local.service_image");
    assertThat(
            JOB.block("template").block("template").block("containers").expr("image").references())
        .containsExactly("local.backfill_image");
    // The variable when given, else the image the build pushed, by digest.
    assertThat(TF.local("service_image").references())
        .containsExactly(
            "var.service_image",
            "var.service_image",
            "data.google_artifact_registry_docker_image.function[0].self_link");
    assertThat(TF.local("backfill_image").references())
        .contains(
            "var.backfill_image",
            "data.google_artifact_registry_docker_image.backfill[0].self_link");
  }

  @Test
  void runTfAndJobTfHoldNoImageStrings() {
    List<String> imageStrings =
        Stream.of("run.tf", "job.tf")
            .map(TF::file)
            .map(HclFile::blocks)
            .flatMap(List::stream)
            .flatMap(b -> b.nestedAttributes().stream())
            .flatMap(n -> n.attribute().value().stringLiterals().stream())
            .filter(s -> IMAGE_LIKE.matcher(s).find())
            .collect(Collectors.toList());

    assertThat(imageStrings).isEmpty();
  }

  @Test
  void thePasswordReachesBothContainersOnlyAsASecretReference() {
    HclBlock serviceContainer = SERVICE.block("template").blocks("containers").get(0);
    HclBlock jobContainer = JOB.block("template").block("template").block("containers");

    for (HclBlock container : List.of(serviceContainer, jobContainer)) {
      List<HclBlock> passwordEnv =
          container.blocks("env").stream()
              .filter(
                  e ->
                      e.expr("name")
                          .literal()
                          .equals(Optional.of(Literal.string("CLICKHOUSE_PASSWORD"))))
              .collect(Collectors.toList());
      assertThat(passwordEnv).as(container.describe()).hasSize(1);
      assertThat(passwordEnv.get(0).attribute("value")).isEmpty();
      HclBlock ref = passwordEnv.get(0).block("value_source").block("secret_key_ref");
      assertThat(ref.expr("secret").references())
          .containsExactly("google_secret_manager_secret.clickhouse_password.secret_id");
      assertThat(ref.expr("version").references())
          .containsExactly("var.clickhouse_password_secret_version");
    }
    for (String local : List.of("clickhouse_env", "service_env_all", "backfill_env_all")) {
      assertThat(TF.local(local).objectKeys()).as(local).doesNotContain("CLICKHOUSE_PASSWORD");
    }
  }

  @Test
  void aCaCertificateSecretIsMountedWhereClickHouseCaCertPointsInBothContainers() {
    HclBlock serviceTemplate = SERVICE.block("template");
    HclBlock jobTemplate = JOB.block("template").block("template");
    List<HclBlock[]> templatesAndContainers =
        List.of(
            new HclBlock[] {serviceTemplate, serviceTemplate.blocks("containers").get(0)},
            new HclBlock[] {jobTemplate, jobTemplate.block("containers")});

    for (HclBlock[] pair : templatesAndContainers) {
      HclBlock volumes = pair[0].dynamic("volumes");
      assertThat(volumes.expr("for_each").references())
          .as(pair[0].describe())
          .contains("local.clickhouse_ca_secret");
      HclBlock content = volumes.block("content");
      assertThat(content.block("secret").expr("secret").references())
          .containsExactly("volumes.value");
      assertThat(content.block("secret").block("items").expr("path").literal())
          .contains(Literal.string("ca.pem"));
      HclBlock mount = pair[1].dynamic("volume_mounts").block("content");
      assertThat(mount.expr("name").literal()).isEqualTo(content.expr("name").literal());
      assertThat(mount.expr("mount_path").references())
          .containsExactly("local.clickhouse_ca_directory");
    }
    assertThat(TF.local("clickhouse_ca_env").text()).contains("CLICKHOUSE_CA_CERT");
    assertThat(TF.local("clickhouse_ca_env").references())
        .contains("local.clickhouse_ca_secret", "local.clickhouse_ca_directory");
    // The secret named, else the ClickHouse VM's own certificate.
    assertThat(TF.local("clickhouse_ca_secret").references())
        .containsExactly(
            "var.clickhouse_ca_certificate_secret",
            "var.clickhouse_ca_certificate_secret",
            "var.create_clickhouse_vm",
            "var.clickhouse_vm_tls_certificate_secret");
    assertThat(TF.local("clickhouse_ca_env").stringLiterals()).contains("/ca.pem");
    assertThat(TF.local("clickhouse_ca_directory").literal())
        .contains(Literal.string("/etc/clickhouse-ca"));
    assertThat(TF.local("service_env").references()).contains("local.clickhouse_ca_env");
    assertThat(TF.local("backfill_env").references()).contains("local.clickhouse_ca_env");
  }

  @Test
  void theServiceEnvironmentCarriesEveryApplicationSetting() {
    Set<String> keys = new TreeSet<>(TF.local("clickhouse_env").objectKeys());
    keys.addAll(TF.local("service_env_all").objectKeys());
    HclBlock envLoop = SERVICE.block("template").blocks("containers").get(0).dynamic("env");

    assertThat(keys).containsExactlyInAnyOrderElementsOf(SERVICE_SETTINGS);
    assertThat(envLoop.expr("for_each").references()).containsExactly("local.service_env");
    assertThat(TF.local("service_env").references()).contains("var.service_env");
  }

  @Test
  void deadLetterTopicDefaultsToTheDeadLetterTopicsId() {
    assertThat(
            TF.local("service_env_all").objectEntry("DEAD_LETTER_TOPIC").orElseThrow().references())
        .containsExactly(
            "var.service_dead_letter_publishing", "google_pubsub_topic.dead_letter.id");
    assertThat(TF.variableDefault("service_dead_letter_publishing")).contains(Literal.bool(true));
  }

  @Test
  void theJobEnvironmentCarriesTheClickHouseAndBigQuerySettings() {
    Set<String> keys = new TreeSet<>(TF.local("clickhouse_env").objectKeys());
    keys.addAll(TF.local("backfill_env_all").objectKeys());
    HclBlock envLoop = JOB.block("template").block("template").block("containers").dynamic("env");

    assertThat(keys).containsExactlyInAnyOrderElementsOf(JOB_SETTINGS);
    assertThat(envLoop.expr("for_each").references()).containsExactly("local.backfill_env");
  }

  @Test
  void aRevisionBecomesReadyWhileClickHouseOrTheTableIsStillMissing() {
    HclBlock startup = SERVICE.block("template").blocks("containers").get(0).block("startup_probe");

    // /livez: the process serves; /healthz would hold the first apply until ClickHouse answers.
    assertThat(startup.block("http_get").expr("path").references())
        .containsExactly("var.startup_probe_path");
    assertThat(TF.variableDefault("startup_probe_path")).contains(Literal.string("/livez"));
  }

  @Test
  void afterTheFirstApplyTheImagesAreCloudBuildsAndTerraformKeepsThem() {
    assertThat(SERVICE.block("lifecycle").expr("ignore_changes").text())
        .isEqualTo("[client, client_version, template[0].containers[0].image]");
    assertThat(JOB.block("lifecycle").expr("ignore_changes").text())
        .isEqualTo("[client, client_version, template[0].template[0].containers[0].image]");
    // containers[0] is the one whose image comes from local.service_image.
    assertThat(SERVICE.block("template").blocks("containers").get(0).expr("image").references())
        .containsExactly("local.service_image");
  }

  @Test
  void backfillTasksRunInParallelUnlessLimited() {
    assertThat(JOB.block("template").expr("parallelism").references())
        .containsExactly("var.backfill_parallelism");
    assertThat(TF.variableDefault("backfill_parallelism")).contains(Literal.nullValue());
  }

  @Test
  void theJobWritesDeadLettersToItsOwnDataset() {
    assertThat(
            TF.local("backfill_env_all")
                .objectEntry("OUTPUT_DEADLETTER_DATASET")
                .orElseThrow()
                .references())
        .containsExactly(
            "var.create_backfill_job",
            "var.project_id",
            "google_bigquery_dataset.backfill_dead_letters[0].dataset_id");
  }

  @Test
  void startupAndLivenessProbesGetPort8080() {
    HclBlock container = SERVICE.block("template").blocks("containers").get(0);
    HclBlock startup = container.block("startup_probe").block("http_get");
    HclBlock liveness = container.dynamic("liveness_probe").block("content").block("http_get");

    assertThat(startup.expr("port").literal()).contains(Literal.number("8080"));
    assertThat(startup.expr("path").references()).containsExactly("var.startup_probe_path");
    assertThat(liveness.expr("port").literal()).contains(Literal.number("8080"));
    assertThat(liveness.expr("path").references()).containsExactly("liveness_probe.value");
    assertThat(TF.variableDefault("liveness_probe_path")).contains(Literal.string("/livez"));
    assertThat(container.block("ports").expr("container_port").literal())
        .contains(Literal.number("8080"));
  }

  @Test
  void theServiceDefaultsTo250ConcurrentRequestsOnOneCpuAnd512Mi() {
    HclBlock template = SERVICE.block("template");
    HclBlock limits = template.blocks("containers").get(0).block("resources");

    assertThat(template.expr("max_instance_request_concurrency").references())
        .containsExactly("var.max_instance_request_concurrency");
    assertThat(TF.variableDefault("max_instance_request_concurrency"))
        .contains(Literal.number("250"));
    assertThat(limits.expr("limits").objectEntry("cpu").orElseThrow().references())
        .containsExactly("var.service_cpu");
    assertThat(limits.expr("limits").objectEntry("memory").orElseThrow().references())
        .containsExactly("var.service_memory");
    assertThat(TF.variableDefault("service_cpu")).contains(Literal.string("1"));
    assertThat(TF.variableDefault("service_memory")).contains(Literal.string("512Mi"));
  }

  @Test
  void theServiceAndTheJobRunAsTheirOwnServiceAccounts() {
    assertThat(SERVICE.block("template").expr("service_account").references())
        .containsExactly("google_service_account.service.email");
    assertThat(JOB.block("template").block("template").expr("service_account").references())
        .containsExactly("google_service_account.backfill[0].email");
  }

  /**
   * {@code image = var.x_image}, or {@code image = containers.value} inside {@code dynamic
   * "containers"} whose for_each lists only var.*_image values.
   */
  private static boolean imageFromVariable(HclBlock.Nested nested) {
    var value = nested.attribute().value();
    List<String> refs = value.references();
    if (!value.stringLiterals().isEmpty() || refs.size() != 1) {
      return false;
    }
    String ref = refs.get(0);
    if (ref.matches("(var|local)\\.[a-z0-9_]+_image")) {
      return true;
    }
    for (HclBlock block : nested.path()) {
      if (block.type().equals("dynamic") && ref.equals(block.label(0) + ".value")) {
        List<String> sources = block.expr("for_each").references();
        return !sources.isEmpty()
            && sources.stream().allMatch(s -> s.matches("var\\.[a-z0-9_]+(_image)?"))
            && sources.stream().anyMatch(s -> s.matches("var\\.[a-z0-9_]+_image"));
      }
    }
    return false;
  }
}
