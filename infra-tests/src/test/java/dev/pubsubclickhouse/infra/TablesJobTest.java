package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The tables job's own shell script (templates/create-tables.sh, the job's only argument), run by
 * sh against a stand-in for ClickHouse's HTTP interface that answers 200 only to the exact Basic
 * login of the user and password it is given, as ClickHouse does, and records every request.
 */
class TablesJobTest {
  private static final String SCRIPT = TerraformFiles.MODULE_DIR + "/templates/create-tables.sh";

  /** Serves on a free port (or names a closed one), runs the script, prints what happened. */
  private static final String STAND_IN =
      """
      import base64, http.server, json, os, subprocess, sys, threading
      script, user, password, mode = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
      seen = []
      class Handler(http.server.BaseHTTPRequestHandler):
          def do_POST(self):
              body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
              auth = self.headers.get("Authorization")
              seen.append({"authorization": auth, "body": body, "path": self.path})
              login = base64.b64encode((user + ":" + password).encode()).decode()
              ok = auth == "Basic " + login
              self.send_response(200 if ok else 401)
              self.end_headers()
              self.wfile.write(b"Ok.\\n" if ok else b"Code: 516. Authentication failed\\n")
          def log_message(self, *args):
              pass
      server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
      threading.Thread(target=server.serve_forever, daemon=True).start()
      port = 9 if mode == "closed" else server.server_address[1]
      env = dict(os.environ, CLICKHOUSE_URL="http://127.0.0.1:%d/" % port,
                 CLICKHOUSE_USER=user, CLICKHOUSE_PASSWORD=password, DDL_COUNT="2",
                 DDL_0="CREATE DATABASE IF NOT EXISTS realtime", DDL_1="SELECT ';' AS \\"x\\"")
      run = subprocess.run(["sh", "-c", open(script).read()], env=env,
                           capture_output=True, text=True)
      print(json.dumps({"exit": run.returncode, "stderr": run.stderr, "seen": seen}))
      """;

  @Test
  void theJobRunsTheScriptAsItsOnlyArgument() {
    HclBlock container =
        TerraformFiles.MODULE
            .resource("google_cloud_run_v2_job", "create_tables")
            .block("template")
            .block("template")
            .block("containers");

    assertThat(container.expr("args").text())
        .isEqualTo("[file(\"${path.module}/templates/create-tables.sh\")]");
  }

  @Test
  void aPasswordWithQuotesBackslashesColonsAndPercentSignsLogsIn() {
    String password = "p\"a\\ss:w%rd'$x 1%22";
    String login =
        "Basic "
            + Base64.getEncoder()
                .encodeToString(("pipeline:" + password).getBytes(StandardCharsets.UTF_8));

    String outcome = run("pipeline", password, "open");

    assertThat(outcome)
        .startsWith("{\"exit\": 0, \"stderr\": \"\", \"seen\": [")
        .contains(
            "{\"authorization\": \""
                + login
                + "\", \"body\": \"CREATE DATABASE IF NOT EXISTS realtime\", \"path\": \"/\"}")
        .contains(
            "{\"authorization\": \""
                + login
                + "\", \"body\": \"SELECT ';' AS \\\"x\\\"\", \"path\": \"/\"}")
        .doesNotContain("w%rd");
  }

  @Test
  void anUnreachableClickHouseIsBlamedOnItsAccessListOrTheEgress() {
    String outcome = run("pipeline", "secret-password", "closed");

    assertThat(outcome)
        .startsWith("{\"exit\": 1,")
        .contains("no answer from ClickHouse at http://127.0.0.1:9/")
        .contains("IP access list", "0.0.0.0/0", "Cloud NAT and a static address")
        .doesNotContain("secret-password");
  }

  private static String run(String user, String password, String mode) {
    LocalTools.Result result =
        LocalTools.run(
            RepoFiles.root(),
            STAND_IN,
            Map.of(),
            LocalTools.require("python3"),
            "-",
            RepoFiles.path(SCRIPT).toString(),
            user,
            password,
            mode);
    assertThat(result.exitCode()).as(result.err()).isZero();
    return result.out().strip();
  }
}
