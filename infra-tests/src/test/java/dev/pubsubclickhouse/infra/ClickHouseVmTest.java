package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import org.junit.jupiter.api.Test;

/** The module's clickhouse_vm.tf: one port (TLS or not), a data disk, backups, a fixed address. */
class ClickHouseVmTest {
  private static final TerraformConfig TF = TerraformFiles.MODULE;
  private static final HclBlock VM = TF.resource("google_compute_instance", "clickhouse");

  @Test
  void theFirewallOpensOnePortFromTheCloudRunRangeOnly8443OnlyWithTls() {
    HclBlock firewall = TF.resource("google_compute_firewall", "clickhouse_http_from_run");

    assertThat(firewall.block("allow").expr("ports").references())
        .containsExactly("local.clickhouse_vm_port");
    assertThat(TF.local("clickhouse_vm_port").text())
        .isEqualTo("local.clickhouse_vm_tls ? 8443 : 8123");
    assertThat(TF.local("clickhouse_vm_tls").text())
        .isEqualTo("var.clickhouse_vm_tls_certificate_secret != null");
    assertThat(firewall.expr("source_ranges").references())
        .containsExactly("data.google_compute_subnetwork.egress[0].ip_cidr_range");
    // The URL the service gets uses the same port, https with TLS (values: ModuleLocalsTest).
    assertThat(TF.local("clickhouse_url").references())
        .containsExactly(
            "var.create_clickhouse_vm",
            "local.clickhouse_vm_tls",
            "google_compute_address.clickhouse[0].address",
            "local.clickhouse_vm_port",
            "var.clickhouse_url");
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

  @Test
  void aCertificateNeedsItsKeyAndAFixedAddressToName() {
    String conditions =
        TF.blocks("data").stream()
            .filter(b -> b.label(0).equals("google_compute_subnetwork"))
            .findFirst()
            .orElseThrow()
            .block("lifecycle")
            .blocks("precondition")
            .stream()
            .map(p -> p.expr("condition").text())
            .reduce("", (a, b) -> a + "\n" + b);

    assertThat(conditions)
        .contains(
            "(var.clickhouse_vm_tls_certificate_secret == null) == (var.clickhouse_vm_tls_private_key_secret == null)")
        .contains(
            "var.clickhouse_vm_tls_certificate_secret == null || var.clickhouse_vm_internal_ip != null")
        .contains("var.clickhouse_url == null");
  }

  @Test
  void theZoneIsOneTheRegionHasNotAGuessedSuffix() {
    // "<region>-a" does not exist in us-east1 or europe-west1.
    HclBlock zones =
        TF.blocks("data").stream()
            .filter(b -> b.label(0).equals("google_compute_zones"))
            .findFirst()
            .orElseThrow();

    assertThat(zones.expr("region").references()).containsExactly("var.region");
    assertThat(zones.expr("status").literal()).contains(Literal.string("UP"));
    assertThat(TF.local("clickhouse_vm_zone").text()).doesNotContain("-a\"");
    assertThat(TF.local("clickhouse_vm_zone").references())
        .contains("var.clickhouse_vm_zone")
        .anyMatch(r -> r.startsWith("data.google_compute_zones."));
  }
}
