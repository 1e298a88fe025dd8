package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.Expr.Span;
import dev.pubsubclickhouse.infra.hcl.HclAttribute;
import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclFile;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import dev.pubsubclickhouse.infra.hcl.TerraformTree;
import dev.pubsubclickhouse.infra.schema.ProviderSchema;
import dev.pubsubclickhouse.infra.schema.SchemaCheck;
import dev.pubsubclickhouse.infra.schema.SchemaCheck.Problem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every resource, data source, argument and block in terraform/ is one the Google provider has (the
 * schema check), and the check catches a misspelling of any of them: each name is misspelled in
 * turn in a copy of its file, and the check must refuse that copy at that place.
 */
class ProviderSchemaTest {
  private static final TerraformTree TREE = TerraformTree.load(RepoFiles.path("terraform"));
  private static final SchemaCheck CHECK = new SchemaCheck();

  /** Names nobody spells for the provider: local values and the terraform block's settings. */
  private static final Set<String> FREE_BLOCKS = Set.of("locals", "required_providers", "backend");

  @Test
  void everyNameInTerraformIsInTheProvidersSchema() {
    assertThat(TREE.modules().keySet())
        .extracting(Path::toString)
        .contains(
            "modules/pubsub-clickhouse",
            "modules/pubsub-clickhouse-gke",
            "examples/clickhouse-cloud",
            "examples/clickhouse-vm",
            "examples/gke-autopilot-arm64");
    assertThat(CHECK.check(TREE)).isEmpty();
  }

  @Test
  void aMisspelledNameAnywhereInTerraformIsRefusedWhereItIsWritten() {
    List<String> missed = new ArrayList<>();
    int mutations = 0;
    for (Map.Entry<Path, TerraformConfig> module : TREE.modules().entrySet()) {
      for (HclFile file : module.getValue().files()) {
        for (Site site : sites(file)) {
          mutations++;
          String misspelled = site.name() + "x";
          String source =
              file.source().substring(0, site.span().start())
                  + misspelled
                  + file.source().substring(site.span().end());
          TerraformTree mutated =
              TREE.withFile(module.getKey(), HclFile.parse(file.name(), source));
          String where = module.getKey().resolve(file.name()).toString();
          List<Problem> problems = CHECK.check(mutated);
          boolean found =
              problems.stream()
                  .anyMatch(
                      p ->
                          p.file().equals(where)
                              && (p.line() == site.line() || p.message().contains(misspelled)));
          if (!found) {
            missed.add(where + ":" + site.line() + " " + misspelled + " -> " + problems);
          }
        }
      }
    }

    assertThat(missed).isEmpty();
    // Every resource type, argument and block: well over the 300 names the files hold.
    assertThat(mutations).isGreaterThan(300);
  }

  @Test
  void aMisspelledReferenceIsRefused() {
    for (String[] typo :
        new String[][] {
          {"google_cloud_run_v2_service.ingest.uri", "google_cloud_run_v2_service.ingest.urix"},
          {"google_pubsub_topic.ingest.id", "google_pubsub_topic.ingestx.id"},
          {"var.create_backfill_job", "var.create_backfill_jobx"},
          {"local.clickhouse_url", "local.clickhouse_urlx"},
        }) {
      assertThat(problemsInModuleWith("outputs.tf", typo[0], typo[1]))
          .as(typo[1])
          .isNotEmpty()
          .allSatisfy(p -> assertThat(p.file()).isEqualTo("modules/pubsub-clickhouse/outputs.tf"));
    }
  }

  @Test
  void aMovedBlockMustLeaveItsOldAddressAndNameADeclaredNewOne() {
    for (String[] typo :
        new String[][] {
          {
            "to   = google_monitoring_alert_policy.pipeline[\"service_5xx\"]",
            "to   = google_monitoring_alert_policy.pipelines[\"service_5xx\"]"
          },
          {
            "from = google_monitoring_alert_policy.service_5xx[0]",
            "from = google_monitoring_alert_policy.pipeline[\"service_5xx\"]"
          },
        }) {
      assertThat(problemsInModuleWith("monitoring.tf", typo[0], typo[1]))
          .as(typo[1])
          .singleElement()
          .satisfies(p -> assertThat(p.message()).startsWith("moved"));
    }
  }

  /** What the check finds in the module with {@code text} in one of its files made {@code typo}. */
  private static List<Problem> problemsInModuleWith(String fileName, String text, String typo) {
    Path dir = Path.of("modules/pubsub-clickhouse");
    HclFile file = TREE.module(dir.toString()).file(fileName);
    assertThat(file.source()).contains(text);
    return CHECK.check(
        TREE.withFile(dir, HclFile.parse(fileName, file.source().replace(text, typo))));
  }

  @Test
  void theSchemaKnowsCloudRunsNestedBlocksAndTheBetaOnlyServiceIdentity() {
    ProviderSchema.Node service =
        ProviderSchema.google().resource("google_cloud_run_v2_service").orElseThrow();
    ProviderSchema.Node container = service.blocks().get("template").blocks().get("containers");

    assertThat(container.arguments()).contains("image", "args", "name");
    assertThat(container.blocks()).containsKeys("env", "startup_probe", "liveness_probe");
    assertThat(service.readOnly()).contains("uri");
    assertThat(ProviderSchema.google().resource("google_project_service_identity")).isEmpty();
    assertThat(
            ProviderSchema.googleBeta()
                .resource("google_project_service_identity")
                .orElseThrow()
                .readOnly())
        .contains("email");
  }

  @Test
  void theKubernetesSchemaKnowsTheDeploymentsPodSpecAndTheManifestResource() {
    ProviderSchema.Node pod =
        ProviderSchema.kubernetes()
            .resource("kubernetes_deployment_v1")
            .orElseThrow()
            .blocks()
            .get("spec")
            .blocks()
            .get("template")
            .blocks()
            .get("spec");

    assertThat(pod.arguments())
        .contains("node_selector", "service_account_name", "termination_grace_period_seconds");
    assertThat(pod.blocks().get("container").blocks())
        .containsKeys("startup_probe", "liveness_probe", "readiness_probe", "resources");
    assertThat(
            ProviderSchema.kubernetes().resource("kubernetes_manifest").orElseThrow().arguments())
        .contains("manifest");
    assertThat(ProviderSchema.kubernetes().provider().arguments())
        .contains("host", "token", "cluster_ca_certificate");
  }

  @Test
  void theSchemaIsOfTheProviderVersionEveryVersionsTfAsksFor() {
    // The check means something only for the provider the configuration installs.
    Map<String, int[]> schemaVersions =
        Map.of(
            "google", schemaVersion("google"),
            "google-beta", schemaVersion("google"),
            "kubernetes", schemaVersion("kubernetes"));
    Pattern constraint =
        Pattern.compile(
            "([a-z-]+) = \\{\\s*source\\s*= \"hashicorp/([a-z-]+)\"\\s*(?:#[^\\n]*\\s*)*"
                + "version = \">= (\\d+)\\.(\\d+), < (\\d+)\\.0\"");
    Pattern source = Pattern.compile("source\\s*= \"hashicorp/");
    int constraints = 0;
    int sources = 0;
    for (Map.Entry<Path, TerraformConfig> module : TREE.modules().entrySet()) {
      String versions = module.getValue().file("versions.tf").source();
      sources += (int) source.matcher(versions).results().count();
      Matcher m = constraint.matcher(versions);
      while (m.find()) {
        constraints++;
        int[] schema = schemaVersions.get(m.group(2));
        assertThat(schema).as(module.getKey() + " " + m.group(1)).isNotNull();
        int lowMajor = Integer.parseInt(m.group(3));
        int lowMinor = Integer.parseInt(m.group(4));
        assertThat(schema[0] > lowMajor || schema[0] == lowMajor && schema[1] >= lowMinor)
            .as(module.getKey() + " " + m.group(1) + " asks for >= " + lowMajor + "." + lowMinor)
            .isTrue();
        assertThat(schema[0])
            .as(module.getKey() + " " + m.group(1))
            .isLessThan(Integer.parseInt(m.group(5)));
      }
    }
    assertThat(schemaVersions.get("google")[0]).isEqualTo(7);
    assertThat(schemaVersions.get("kubernetes")).containsExactly(2, 38);
    // Every provider every versions.tf requires has such a constraint.
    assertThat(constraints).isEqualTo(sources).isGreaterThanOrEqualTo(2 * TREE.modules().size());
  }

  /**
   * Major and minor version of the provider a schema file was made from; a schema of a whole major
   * range (google's "7.x") has every minor.
   */
  private static int[] schemaVersion(String provider) {
    Matcher header =
        Pattern.compile("# Terraform provider " + provider + " (\\d+)\\.(\\d+|x)")
            .matcher(
                RepoFiles.read(
                    "infra-tests/src/test/resources/terraform-schema/" + provider + ".txt"));
    assertThat(header.find()).as(provider).isTrue();
    int minor = header.group(2).equals("x") ? Integer.MAX_VALUE : Integer.parseInt(header.group(2));
    return new int[] {Integer.parseInt(header.group(1)), minor};
  }

  /** A name the schema decides, and where it is written. */
  record Site(String name, Span span, int line) {}

  private static List<Site> sites(HclFile file) {
    List<Site> sites = new ArrayList<>();
    for (HclBlock block : file.blocks()) {
      if (FREE_BLOCKS.contains(block.type())) {
        continue;
      }
      if (block.type().equals("resource") || block.type().equals("data")) {
        sites.add(labelSite(file, block, 0));
      }
      names(file, block, sites);
    }
    return sites;
  }

  /** The attribute names and nested block types of {@code block}, dynamic labels included. */
  private static void names(HclFile file, HclBlock block, List<Site> sites) {
    for (HclAttribute attribute : block.attributes().values()) {
      sites.add(new Site(attribute.name(), attribute.nameSpan(), attribute.line()));
    }
    for (HclBlock nested : block.blocks()) {
      if (FREE_BLOCKS.contains(nested.type())) {
        continue;
      }
      sites.add(new Site(nested.type(), nested.typeSpan(), nested.line()));
      if (nested.type().equals("dynamic")) {
        sites.add(labelSite(file, nested, 0));
      }
      names(file, nested, sites);
    }
  }

  /** A quoted label: the name inside the quotes. */
  private static Site labelSite(HclFile file, HclBlock block, int index) {
    Span quoted = block.labelSpans().get(index);
    return new Site(
        block.label(index), new Span(quoted.start() + 1, quoted.end() - 1), block.line());
  }
}
