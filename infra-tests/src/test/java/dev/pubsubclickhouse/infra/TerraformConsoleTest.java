package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the module computes, computed by Terraform itself: {@code terraform console} evaluates the
 * module's own expressions and renders its startup script (no provider is needed for either).
 */
class TerraformConsoleTest {
  private static final String STARTUP_TEMPLATE =
      RepoFiles.path(TerraformFiles.MODULE_DIR + "/templates/clickhouse-startup.sh.tftpl")
          .toString();

  /** Values for every variable the instance's templatefile() call passes. */
  private static final Map<String, String> TEMPLATE_VALUES = templateValues();

  @TempDir Path dir;

  @Test
  void theServiceAnswersBeforeTheAckDeadlineWhateverTheDeadline() throws IOException {
    Files.writeString(
        dir.resolve("main.tf"),
        "variable \"ack_deadline_seconds\" {\n  type = number\n}\n"
            + "variable \"answer_timeout_ms\" {\n  type    = number\n  default = null\n}\n"
            + "locals {\n"
            + "  answer_margin_ms  = "
            + TerraformFiles.MODULE.local("answer_margin_ms").text()
            + "\n  answer_timeout_ms = "
            + TerraformFiles.MODULE.local("answer_timeout_ms").text()
            + "\n}\n");

    assertThat(answerTimeout(10, null)).isEqualTo("9000");
    assertThat(answerTimeout(30, null)).isEqualTo("27000");
    assertThat(answerTimeout(60, null)).isEqualTo("55000");
    assertThat(answerTimeout(600, null)).isEqualTo("595000");
    assertThat(answerTimeout(60, "20000")).isEqualTo("20000");
    // And the service gets it: ANSWER_TIMEOUT_MS in its environment is this local.
    assertThat(
            TerraformFiles.MODULE
                .local("service_env_all")
                .objectEntry("ANSWER_TIMEOUT_MS")
                .orElseThrow()
                .references())
        .containsExactly("local.answer_timeout_ms");
  }

  @Test
  void thePlanRefusesAnAnswerTimeoutAtOrPastTheDeadlineOrBelowTheBatchWait() throws IOException {
    HclBlock lifecycle =
        TerraformFiles.MODULE.resource("google_cloud_run_v2_service", "ingest").block("lifecycle");
    String[] conditions =
        lifecycle.blocks("precondition").stream()
            .map(p -> p.expr("condition").text())
            .filter(c -> c.contains("ANSWER_TIMEOUT_MS"))
            .toArray(String[]::new);
    assertThat(conditions).hasSize(2);
    Files.writeString(
        dir.resolve("main.tf"),
        "variable \"ack_deadline_seconds\" {\n  type = number\n}\n"
            + "variable \"env\" {\n  type = map(string)\n}\n"
            + "locals {\n  service_env = var.env\n}\n");

    assertThat(holds(conditions, 60, "{ANSWER_TIMEOUT_MS=\"55000\"}")).isTrue();
    assertThat(holds(conditions, 60, "{ANSWER_TIMEOUT_MS=\"60000\"}")).isFalse();
    assertThat(holds(conditions, 60, "{ANSWER_TIMEOUT_MS=\"later\"}")).isFalse();
    assertThat(holds(conditions, 10, "{ANSWER_TIMEOUT_MS=\"9000\",BATCH_MAX_WAIT_MS=\"9000\"}"))
        .isFalse();
    assertThat(holds(conditions, 10, "{ANSWER_TIMEOUT_MS=\"900\"}")).as("below 1000 ms").isFalse();
  }

  @Test
  void theStartupScriptIsValidBashAndPutsNoSecretOnACommandLine() throws IOException {
    String script = startupScript(TEMPLATE_VALUES);
    Path file = dir.resolve("startup.sh");
    Files.writeString(file, script);

    LocalTools.Result syntax =
        LocalTools.run(dir, "", Map.of(), LocalTools.require("bash"), "-n", file.toString());
    assertThat(syntax.exitCode()).as(syntax.err()).isZero();
    assertThat(script)
        .doesNotContain("--password")
        .doesNotContain("Bearer $")
        .contains("BACKUP DATABASE")
        // The user logs in from the Cloud Run egress range and the machine itself only, and the
        // package's MySQL, PostgreSQL and interserver ports are closed.
        .contains("<networks><ip>10.8.0.0/26</ip></networks>")
        .doesNotContain("::/0")
        // Backups leave as many objects, never one upload of the whole database.
        .contains("gcloud storage rsync --recursive")
        .doesNotContain("uploadType=media")
        .doesNotContainPattern("\\.tar\\b")
        .contains("<mysql_port remove=\"1\"/>")
        .contains("<postgresql_port remove=\"1\"/>")
        .contains("<interserver_http_port remove=\"1\"/>")
        .contains("gs://the-backups/")
        .contains("OnCalendar=*-*-* 03:00:00 UTC")
        .contains("for database in realtime logs_db; do");
  }

  @Test
  void theStartupScriptServesTlsOnlyAndInstallsThePinnedRelease() {
    String script = startupScript(TEMPLATE_VALUES);

    assertThat(script)
        .contains("fetch_secret 'the-cert'", "fetch_secret 'the-key'")
        .contains("<http_port remove=\"1\"/>", "<tcp_port remove=\"1\"/>")
        .contains("<https_port>8443</https_port>", "<tcp_port_secure>9440</tcp_port_secure>")
        .doesNotContain("8123", "<tcp_port>9000")
        // The administrator logs in from the machine itself only.
        .contains("<networks replace=\"replace\"><ip>::1</ip><ip>127.0.0.1</ip></networks>")
        // The release asked for, held against apt upgrades.
        .contains("  25.8.*) ;;")
        .contains("\"clickhouse-server=25.8.*\"", "\"clickhouse-client=25.8.*\"")
        .contains("apt-mark hold clickhouse-server clickhouse-client clickhouse-common-static")
        .contains("https://packages.clickhouse.com/deb lts main");
  }

  /** The statements of sql/grants.sql, comments aside, spaces collapsed. */
  private static List<String> grantStatements() {
    return java.util.Arrays.stream(
            RepoFiles.read("sql/grants.sql").replaceAll("--[^\\n]*", "").split(";"))
        .map(q -> q.strip().replaceAll("\\s+", " "))
        .filter(q -> !q.isEmpty())
        .toList();
  }

  @Test
  void thePasswordReachesTheServerAsAHashAndTheClientInAFileOfMode600() throws Exception {
    String script = startupScript(TEMPLATE_VALUES);
    String python =
        script.substring(
            script.indexOf("<<'PY'\n") + 7,
            script.indexOf("\nPY\n", script.indexOf("<<'PY'\n")) + 1);
    String password = "p<a&s>s\"w'rd";
    Path passwordFile = dir.resolve("password");
    Files.writeString(passwordFile, password);
    Path adminPasswordFile = dir.resolve("admin-password");
    Files.writeString(adminPasswordFile, "adm1n\n");
    Path grantsFile = dir.resolve("grants.sql");
    Files.writeString(grantsFile, RepoFiles.read("sql/grants.sql"));
    Path usersDir = dir.resolve("server/users.d");
    Path server = usersDir.resolve("pubsub-clickhouse-user.xml");
    Path admin = usersDir.resolve("pubsub-clickhouse-admin.xml");
    Path client = dir.resolve("client/config.xml");
    String me = System.getProperty("user.name");

    LocalTools.Result result =
        LocalTools.run(
            dir,
            python,
            Map.of(),
            LocalTools.require("python3"),
            "-",
            passwordFile.toString(),
            "pipeline",
            grantsFile.toString(),
            adminPasswordFile.toString(),
            usersDir.toString(),
            me,
            client.toString(),
            me);

    assertThat(result.exitCode()).as(result.err()).isZero();
    String sha256 =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256")
                    .digest(password.getBytes(StandardCharsets.UTF_8)));
    assertThat(Files.readString(server))
        .contains("<pipeline>", "<password_sha256_hex>" + sha256 + "</password_sha256_hex>")
        .contains("<query>GRANT SELECT, INSERT ON realtime.logs</query>\n")
        .contains(
            "<grants>\n"
                + grantStatements().stream()
                    .map(q -> "        <query>" + q + "</query>\n")
                    .collect(Collectors.joining())
                + "      </grants>")
        .doesNotContain(password);
    String adminSha256 =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256")
                    .digest("adm1n".getBytes(StandardCharsets.UTF_8)));
    assertThat(Files.readString(admin))
        .contains("<default>", "<password_sha256_hex>" + adminSha256 + "</password_sha256_hex>");
    assertThat(Files.readString(client))
        .contains("<user>default</user>", "<password>adm1n</password>", "<port>9440</port>")
        .contains("<secure>true</secure>")
        .doesNotContain(password);
    for (Path written : new Path[] {server, admin, client}) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(written)))
          .as(written.toString())
          .isEqualTo("rw-------");
    }
  }

  @Test
  void theTablesJobSendsEachStatementOfTheSqlFilesWithoutTheirComments() throws IOException {
    // Trailing comments hold semicolons ("-- ...; base64 if not UTF-8"): a split that kept them
    // sent half a comment as a statement.
    String moduleDir = RepoFiles.path(TerraformFiles.MODULE_DIR).toString();
    Files.writeString(
        dir.resolve("main.tf"),
        "locals {\n  module_ddl = "
            + TerraformFiles.MODULE.local("module_ddl").text().replace("${path.module}", moduleDir)
            + "\n}\n");

    String statements =
        LocalTools.console(
            dir, "join(\"|\", [for s in local.module_ddl : split(\"\\n\", s)[0]])", Map.of());

    assertThat(statements)
        .isEqualTo(
            "\"CREATE DATABASE IF NOT EXISTS realtime"
                + "|CREATE TABLE IF NOT EXISTS realtime.logs"
                + "|CREATE DATABASE IF NOT EXISTS realtime"
                + "|CREATE TABLE IF NOT EXISTS realtime.logs_dead_letter"
                + "|ALTER TABLE realtime.logs_dead_letter\"");
    assertThat(
            LocalTools.console(
                dir, "anytrue([for s in local.module_ddl : strcontains(s, \"--\")])", Map.of()))
        .isEqualTo("false");
  }

  private String answerTimeout(int ackDeadlineSeconds, String override) {
    Map<String, String> variables = new LinkedHashMap<>();
    variables.put("ack_deadline_seconds", String.valueOf(ackDeadlineSeconds));
    if (override != null) {
      variables.put("answer_timeout_ms", override);
    }
    return LocalTools.console(dir, "local.answer_timeout_ms", variables);
  }

  private boolean holds(String[] conditions, int ackDeadlineSeconds, String env) {
    String all = String.join(" && ", conditions);
    return Boolean.parseBoolean(
        LocalTools.console(
            dir,
            all,
            Map.of("ack_deadline_seconds", String.valueOf(ackDeadlineSeconds), "env", env)));
  }

  private String startupScript(Map<String, String> values) {
    String arguments =
        values.entrySet().stream()
            .map(e -> e.getKey() + " = \"" + e.getValue() + "\"")
            .collect(Collectors.joining(", "));
    String encoded =
        LocalTools.console(
            dir,
            "base64encode(templatefile(\"" + STARTUP_TEMPLATE + "\", {" + arguments + "}))",
            Map.of());
    return new String(
        Base64.getDecoder().decode(encoded.replace("\"", "")), StandardCharsets.UTF_8);
  }

  /** One value per key of the templatefile() call in clickhouse_vm.tf: a new key fails here. */
  private static Map<String, String> templateValues() {
    HclExpression metadata =
        TerraformFiles.MODULE.resource("google_compute_instance", "clickhouse").expr("metadata");
    Map<String, String> values = new LinkedHashMap<>();
    values.put("project_id", "the-project");
    values.put("password_secret", "the-password");
    values.put("clickhouse_user", "pipeline");
    values.put("clickhouse_version", "25.8.*");
    values.put("client_cidr", "10.8.0.0/26");
    values.put("tls_cert_secret", "the-cert");
    values.put("tls_key_secret", "the-key");
    values.put("backup_bucket", "the-backups");
    values.put("backup_schedule", "*-*-* 03:00:00");
    values.put("backup_databases", "realtime logs_db");
    assertThat(metadata.objectEntry("startup-script").orElseThrow().objectKeys())
        .containsExactlyInAnyOrderElementsOf(values.keySet());
    return values;
  }
}
