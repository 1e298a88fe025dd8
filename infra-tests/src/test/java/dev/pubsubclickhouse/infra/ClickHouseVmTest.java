package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The module's clickhouse_vm.tf: one port (TLS or not), a data disk, backups, a fixed address. */
class ClickHouseVmTest {
  @TempDir Path dir;

  private static final TerraformConfig TF = TerraformFiles.MODULE;
  private static final HclBlock VM = TF.resource("google_compute_instance", "clickhouse");

  @Test
  void theFirewallOpensTheHttpsPortFromTheCloudRunRangeOnly() {
    HclBlock firewall = TF.resource("google_compute_firewall", "clickhouse_http_from_run");
    List<HclBlock> rulesForTheVm =
        TF.resources("google_compute_firewall").stream()
            .filter(f -> f.expr("target_tags").text().equals(VM.expr("tags").text()))
            .collect(Collectors.toList());

    assertThat(rulesForTheVm).containsExactly(firewall);
    assertThat(firewall.blocks("allow")).hasSize(1);
    assertThat(firewall.block("allow").expr("protocol").literal()).contains(Literal.string("tcp"));
    assertThat(firewall.block("allow").expr("ports").references())
        .containsExactly("local.clickhouse_vm_port");
    assertThat(TF.local("clickhouse_vm_port").literal()).contains(Literal.number("8443"));
    assertThat(firewall.expr("source_ranges").references())
        .containsExactly("data.google_compute_subnetwork.egress[0].ip_cidr_range");
    assertThat(firewall.expr("direction").literal()).contains(Literal.string("INGRESS"));
    // The URL the service gets is https on that port (values: ModuleLocalsTest).
    assertThat(TF.local("clickhouse_url").stringLiterals()).contains("https://");
    assertThat(TF.local("clickhouse_url").references())
        .containsOnly(
            "var.create_clickhouse_vm",
            "google_compute_address.clickhouse[0].address",
            "local.clickhouse_vm_port",
            "var.clickhouse_url");
  }

  @Test
  void theVmServesTlsOnlyAndTheServiceIsNotTheAdministrator() {
    String conditions = subnetworkPreconditions();

    assertThat(conditions)
        .contains(
            "var.clickhouse_vm_tls_certificate_secret != null && var.clickhouse_vm_tls_private_key_secret != null")
        .contains("var.clickhouse_vm_internal_ip != null")
        .contains("var.clickhouse_user != \"default\"");
    HclExpression template = VM.expr("metadata").objectEntry("startup-script").orElseThrow();
    assertThat(template.objectEntry("tls_cert_secret").orElseThrow().references())
        .containsExactly("var.clickhouse_vm_tls_certificate_secret");
    assertThat(template.objectEntry("clickhouse_version").orElseThrow().references())
        .containsExactly("var.clickhouse_vm_version");
    assertThat(TF.variableDefault("clickhouse_vm_version")).contains(Literal.string("25.8.*"));
    assertThat(VM.expr("metadata").objectEntry("clickhouse-grants").orElseThrow().text())
        .contains("sql/grants.sql");
    assertThat(
            TerraformFiles.TREE
                .module("examples/clickhouse-vm")
                .blocks("module")
                .get(0)
                .expr("clickhouse_user")
                .literal())
        .contains(Literal.string("pipeline"));
  }

  @Test
  void theDataDiskCannotBeDestroyedAndIsSnapshottedDaily() {
    HclBlock disk = TF.resource("google_compute_disk", "clickhouse_data");
    HclBlock policy = TF.resource("google_compute_resource_policy", "clickhouse_data_snapshots");
    HclBlock snapshots = policy.block("snapshot_schedule_policy");

    assertThat(disk.block("lifecycle").expr("prevent_destroy").literal())
        .contains(Literal.bool(true));
    HclBlock attachment =
        TF.resource("google_compute_disk_resource_policy_attachment", "clickhouse_data_snapshots");
    assertThat(attachment.expr("disk").references())
        .containsExactly("google_compute_disk.clickhouse_data[0].name");
    assertThat(attachment.expr("name").references())
        .containsExactly("google_compute_resource_policy.clickhouse_data_snapshots[0].name");
    assertThat(snapshots.block("schedule").block("daily_schedule").expr("days_in_cycle").literal())
        .contains(Literal.number("1"));
    assertThat(snapshots.block("retention_policy").expr("max_retention_days").references())
        .containsExactly("var.clickhouse_vm_snapshot_retention_days");
    assertThat(snapshots.block("retention_policy").expr("on_source_disk_delete").literal())
        .contains(Literal.string("KEEP_AUTO_SNAPSHOTS"));
  }

  @Test
  void aNewScheduleIsANewPolicyMadeBeforeTheAttachedOneGoes() {
    // A resource policy cannot change: a new schedule replaces it, and the attached one cannot be
    // deleted first (provider issue 17880). So its name carries a hash of everything in it, and
    // the new one is made before the old one is detached and deleted.
    HclBlock policy = TF.resource("google_compute_resource_policy", "clickhouse_data_snapshots");
    Set<String> scheduleInputs =
        policy
            .block("snapshot_schedule_policy")
            .selfAndDescendants()
            .flatMap(b -> b.attributes().values().stream())
            .flatMap(a -> a.value().references().stream())
            .collect(Collectors.toSet());

    assertThat(scheduleInputs)
        .contains("var.clickhouse_vm_snapshot_start_time", "var.region", "var.labels");
    assertThat(policy.expr("name").references())
        .containsExactly("local.clickhouse_vm_snapshot_policy_name");
    assertThat(TF.local("clickhouse_vm_snapshot_policy_name").references())
        .containsAll(scheduleInputs);
    assertThat(policy.block("lifecycle").expr("create_before_destroy").literal())
        .contains(Literal.bool(true));
    String noon = policyName("12:00");
    assertThat(noon).matches("\"pubsub-clickhouse-ch-snapshots-[0-9a-f]{8}\"");
    assertThat(policyName("12:00")).isEqualTo(noon);
    assertThat(policyName("04:00")).isNotEqualTo(noon);
    // One snapshot schedule per disk: the attachment itself goes before the new one comes.
    assertThat(
            TF.resource(
                    "google_compute_disk_resource_policy_attachment", "clickhouse_data_snapshots")
                .blocks("lifecycle"))
        .isEmpty();
  }

  @Test
  void theServiceUsersGrantsReachItsOwnTablesAndReadOnlySystemTablesOnly() {
    String grants = RepoFiles.read("sql/grants.sql").replaceAll("--[^\\n]*", "");
    List<String> statements =
        java.util.Arrays.stream(grants.split(";"))
            .map(q -> q.strip().replaceAll("\\s+", " "))
            .filter(q -> !q.isEmpty())
            .collect(Collectors.toList());

    assertThat(statements)
        .contains(
            "GRANT SELECT, INSERT ON realtime.logs",
            "GRANT SELECT, INSERT ON realtime.logs_dead_letter")
        .allSatisfy(
            q ->
                assertThat(q)
                    .matches(
                        "GRANT [A-Z ,]+ ON realtime\\.\\w+"
                            + "|GRANT SELECT ON system\\.\\w+"
                            + "|GRANT TABLE ENGINE ON MergeTree")
                    .doesNotContain("ALL", " TO ", "*", "DROP", "TRUNCATE"));
  }

  @Test
  void clickHouseDataLivesOnItsOwnDiskAtAFixedAddress() {
    HclBlock disk = VM.block("attached_disk");

    assertThat(disk.expr("source").references())
        .containsExactly("google_compute_disk.clickhouse_data[0].id");
    assertThat(disk.expr("device_name").literal()).contains(Literal.string("clickhouse-data"));
    assertThat(TF.resource("google_compute_disk", "clickhouse_data").expr("size").references())
        .containsExactly("var.clickhouse_vm_data_disk_size_gb");
    assertThat(VM.block("network_interface").expr("network_ip").references())
        .containsExactly("google_compute_address.clickhouse[0].address");
  }

  @Test
  void backupsGoToAPrivateBucketThatDeletesThemAfterTheRetention() {
    HclBlock bucket = TF.resource("google_storage_bucket", "clickhouse_backups");

    assertThat(bucket.expr("public_access_prevention").literal())
        .contains(Literal.string("enforced"));
    assertThat(bucket.expr("uniform_bucket_level_access").literal()).contains(Literal.bool(true));
    assertThat(bucket.block("lifecycle_rule").block("condition").expr("age").references())
        .containsExactly("var.clickhouse_vm_backup_retention_days");
    assertThat(bucket.block("lifecycle_rule").block("action").expr("type").literal())
        .contains(Literal.string("Delete"));
    assertThat(
            VM.expr("metadata")
                .objectEntry("startup-script")
                .orElseThrow()
                .objectEntry("backup_bucket")
                .orElseThrow()
                .references())
        .containsExactly("google_storage_bucket.clickhouse_backups[0].name");
  }

  /** The policy's name as Terraform computes it, for a start time and the variables' defaults. */
  private String policyName(String startTime) {
    try {
      StringBuilder main = new StringBuilder();
      for (String name :
          List.of(
              "name_prefix",
              "clickhouse_vm_snapshot_start_time",
              "clickhouse_vm_snapshot_retention_days",
              "labels",
              "region")) {
        HclBlock variable = TF.variable(name);
        main.append("variable \"").append(name).append("\" {\n  type = ");
        main.append(variable.expr("type").text()).append("\n");
        if (variable.attribute("default").isPresent()) {
          main.append("  default = ").append(variable.expr("default").text()).append("\n");
        }
        main.append("}\n");
      }
      main.append("locals {\n  name = ")
          .append(TF.local("clickhouse_vm_snapshot_policy_name").text())
          .append("\n}\n");
      Files.writeString(dir.resolve("main.tf"), main.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return LocalTools.console(
        dir, "local.name", Map.of("clickhouse_vm_snapshot_start_time", startTime));
  }

  private static String subnetworkPreconditions() {
    return TF.blocks("data").stream()
        .filter(b -> b.label(0).equals("google_compute_subnetwork"))
        .findFirst()
        .orElseThrow()
        .block("lifecycle")
        .blocks("precondition")
        .stream()
        .map(p -> p.expr("condition").text())
        .reduce("", (a, b) -> a + "\n" + b);
  }

  @Test
  void theZoneIsTheCallersNeverAGuessOrTheFirstThatIsUp() {
    // "<region>-a" does not exist in us-east1 or europe-west1; the first zone that is up changes
    // with the zones' status (replacing the VM and the disk Terraform may not destroy) and may
    // not offer C4A. So the caller names it, and the plan says so when it is missing.
    assertThat(TF.blocks("data")).noneMatch(b -> b.label(0).equals("google_compute_zones"));
    assertThat(TF.local("clickhouse_vm_zone").references())
        .containsExactlyInAnyOrder("var.create_clickhouse_vm", "var.clickhouse_vm_zone");
    assertThat(TF.variableDefault("clickhouse_vm_zone")).contains(Literal.nullValue());
    assertThat(subnetworkPreconditions()).contains("var.clickhouse_vm_zone != null");
    HclBlock example = TerraformFiles.TREE.module("examples/clickhouse-vm").blocks("module").get(0);
    assertThat(example.expr("clickhouse_vm_zone").references())
        .containsExactly("var.clickhouse_vm_zone");
    assertThat(
            TerraformFiles.TREE
                .module("examples/clickhouse-vm")
                .variable("clickhouse_vm_zone")
                .attribute("default"))
        .isEmpty();
    assertThat(RepoFiles.read("terraform/examples/clickhouse-vm/terraform.tfvars.example"))
        .containsPattern("\\nclickhouse_vm_zone +=");
  }
}
