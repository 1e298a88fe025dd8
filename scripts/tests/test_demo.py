"""scripts/demo's start of the service, in a copy of the repository where the jars, java and
ClickHouse are stand-ins: the demo must show what its own service did, or stop and say why."""

import http.server
import os
import shutil
import socket
import stat
import subprocess
import tempfile
import threading
import unittest

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# java: the service (function.jar) does what SERVICE says; the push driver and replay succeed.
JAVA = """#!/usr/bin/env bash
case "$*" in
  *function.jar*)
    case "$SERVICE" in
      port-taken) sleep 0.5; echo "Address already in use" >&2; exit 1 ;;
      silent) exec sleep 60 ;;
    esac ;;
esac
exit 0
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Answering(http.server.BaseHTTPRequestHandler):
    """Answers 200 "1" to everything; the first request calls the server's on_first_request."""

    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        first = self.server.on_first_request
        self.server.on_first_request = None
        if first:
            first()
        self.send_response(200)
        self.send_header("Content-Length", "1")
        self.end_headers()
        self.wfile.write(b"1")

    do_GET = do_POST = answer

    def log_message(self, *args):
        pass


def serve(port, on_first_request=None):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Answering)
    server.on_first_request = on_first_request
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class DemoServiceStartTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.servers = []
        repo = os.path.join(self.tmp, "repo")
        os.makedirs(os.path.join(repo, "scripts"))
        shutil.copy(os.path.join(SCRIPTS, "demo"), os.path.join(repo, "scripts", "demo"))
        shutil.copytree(os.path.join(os.path.dirname(SCRIPTS), "sql"), os.path.join(repo, "sql"))
        self.write(os.path.join(repo, "scripts", "pubsub-emulator"), "#!/usr/bin/env bash\nexit 3\n")
        for jar in ("function/target/function.jar", "replay/target/replay.jar",
                    "push-driver/target/push-driver.jar"):
            os.makedirs(os.path.dirname(os.path.join(repo, jar)), exist_ok=True)
            open(os.path.join(repo, jar), "w").close()
        bin_dir = os.path.join(self.tmp, "bin")
        os.makedirs(bin_dir)
        self.write(os.path.join(bin_dir, "java"), JAVA)
        self.demo = os.path.join(repo, "scripts", "demo")
        self.path = bin_dir + os.pathsep + os.environ["PATH"]
        self.port = free_port()

    def tearDown(self):
        for server in self.servers:
            server.shutdown()
            server.server_close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    @staticmethod
    def write(path, text):
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def run_demo(self, service, on_first_query=None):
        clickhouse = serve(free_port(), on_first_query)
        self.servers.append(clickhouse)
        env = dict(os.environ, PATH=self.path, PORT=str(self.port), SERVICE=service,
                   TMPDIR=self.tmp, CLICKHOUSE_URL="http://127.0.0.1:%d" % clickhouse.server_port)
        return subprocess.run(["bash", self.demo], env=env, capture_output=True, text=True,
                              timeout=120)

    def test_a_port_taken_while_the_demo_prepared_is_refused_before_the_service_starts(self):
        # Another process takes the port after the demo's first look, while it makes its tables
        # (in real life: while it builds, downloads ClickHouse, starts the emulator).
        run = self.run_demo("port-taken", lambda: self.servers.append(serve(self.port)))
        self.assertNotIn("ready", run.stdout)
        self.assertIn("demo: port %d already answers" % self.port, run.stderr)
        self.assertEqual(run.returncode, 1)

    def test_a_service_that_never_answers_stops_the_demo(self):
        run = self.run_demo("silent")
        self.assertNotIn("ready", run.stdout)
        self.assertIn("demo: the service did not answer on port %d" % self.port, run.stderr)
        self.assertEqual(run.returncode, 1)

    def test_without_lsof_and_ss_a_taken_port_is_refused_without_guessing_its_owner(self):
        self.servers.append(serve(self.port))
        bare = os.path.join(self.tmp, "bare")
        os.makedirs(bare)
        for tool in ("bash", "dirname", "ps", "cut", "sort", "tr"):
            os.symlink(shutil.which(tool), os.path.join(bare, tool))
        env = dict(os.environ, PATH=bare, PORT=str(self.port), TMPDIR=self.tmp)
        run = subprocess.run([shutil.which("bash"), self.demo], env=env, capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(run.returncode, 1)
        self.assertIn("demo: port %d already answers" % self.port, run.stderr)
        self.assertIn("(neither lsof nor ss is installed to name its process)", run.stderr)
        self.assertNotIn("another user", run.stderr)

    def stand_in(self, script, locate):
        """scripts/<script>: a server of it runs but does not answer; stop says it was called."""
        stopped = os.path.join(self.tmp, script + ".stopped")
        self.write(os.path.join(os.path.dirname(self.demo), script), f"""#!/usr/bin/env bash
case "$1" in
  locate) exit {0 if locate else 3} ;;
  status) exit 1 ;;
  start) echo "{script}: a server is running but does not answer" >&2; exit 1 ;;
  stop) touch {stopped} ;;
esac
""")
        return stopped

    def test_a_clickhouse_the_demo_did_not_start_is_not_stopped(self):
        stopped = self.stand_in("clickhouse-local", locate=False)
        env = dict(os.environ, PATH=self.path, PORT=str(self.port), TMPDIR=self.tmp)
        env.pop("CLICKHOUSE_URL", None)
        run = subprocess.run(["bash", self.demo], env=env, capture_output=True, text=True,
                             timeout=60)
        self.assertIn("running but does not answer", run.stderr)
        self.assertEqual(run.returncode, 1)
        self.assertFalse(os.path.exists(stopped), "the demo stopped a server it did not start")

    def test_an_emulator_the_demo_did_not_start_is_not_stopped(self):
        stopped = self.stand_in("pubsub-emulator", locate=True)
        run = self.run_demo("silent")
        self.assertIn("running but does not answer", run.stderr)
        self.assertEqual(run.returncode, 1)
        self.assertFalse(os.path.exists(stopped), "the demo stopped an emulator it did not start")


if __name__ == "__main__":
    unittest.main()
