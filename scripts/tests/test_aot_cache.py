"""scripts/aot-cache's staleness check: the inputs list (scripts/aot-cache-inputs) tells a rebuilt
jar, another class path and another JDK from the trained ones, and the class-load verdict tells a
cache the JVM used from one it dropped, on a real JDK 25 when this machine has one."""

import http.server
import os
import shutil
import subprocess
import tempfile
import threading
import unittest
import zipfile

from benchsuite import aotcache, coldstart

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INPUTS = os.path.join(SCRIPTS, "aot-cache-inputs")
JDK25 = "/usr/lib/jvm/temurin-25-jdk-amd64"


def class_load(name, source):
    return "[0.100s][info][class,load] %s source: %s\n" % (name, source)


class VerdictTest(unittest.TestCase):
    def test_a_cache_that_supplies_the_services_classes_passes(self):
        lines = [class_load("dev.pubsubclickhouse.function.C%d" % i, "shared objects file")
                 for i in range(95)]
        lines += [class_load("dev.pubsubclickhouse.function.Late%d" % i,
                             "file:/app/classpath/function.jar") for i in range(5)]
        lines += [class_load("java.lang.Object", "shared objects file")]
        passed, why = aotcache.verdict(lines)
        self.assertTrue(passed, why)
        self.assertIn("95 of 100 classes", why)

    def test_a_dropped_cache_fails_even_when_the_jdk_archive_supplies_the_jdk(self):
        lines = [class_load("java.lang.C%d" % i, "shared objects file") for i in range(500)]
        lines += [class_load("dev.pubsubclickhouse.function.C%d" % i,
                             "file:/app/classpath/function.jar") for i in range(100)]
        passed, why = aotcache.verdict(lines)
        self.assertFalse(passed)
        self.assertIn("0 of 100 classes", why)

    def test_a_log_without_class_loading_fails(self):
        passed, why = aotcache.verdict(["{\"message\":\"started\"}\n"])
        self.assertFalse(passed)
        self.assertIn("did not reach the JVM", why)


class PushServer(http.server.ThreadingHTTPServer):
    """A stand-in for the service on a free local port: answers each push 204, except the
    message ids in `drop`, whose connection it closes without an answer."""

    def __init__(self, drop=()):
        drop = set(drop)
        self.received = 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                server.received += 1
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if "*" in drop or any(('"messageId": "%s"' % m).encode() in body for m in drop):
                    self.close_connection = True
                    return
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/" % self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()


class WorkloadTest(unittest.TestCase):
    def serve(self, drop=()):
        server = PushServer(drop)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return server.url

    def test_every_push_answered_204_passes(self):
        aotcache.push_workload(self.serve(), 40, 4)

    def test_a_push_without_an_answer_fails_the_workload(self):
        # A connection closed (or timed out) without an answer is a push the service did not
        # take: the training must say so, not lose that worker's remaining pushes unnoticed.
        with self.assertRaises(RuntimeError) as raised:
            aotcache.push_workload(self.serve(drop=["train-7"]), 40, 4)
        self.assertIn("training push was not answered 204", str(raised.exception))

    def test_the_workload_stops_at_its_first_failed_push(self):
        # A push waits up to a minute for its answer: a service that stopped answering must not
        # hold the build for every remaining push in turn.
        server = PushServer(drop=["*"])
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        with self.assertRaises(RuntimeError):
            aotcache.push_workload(server.url, 400, 4)
        self.assertLessEqual(server.received, 4)


class FailureOutputTest(unittest.TestCase):
    """In Cloud Build the command's log stays in the build's workspace, which nobody can read
    after the build: a failure must show the end of it."""

    def test_a_command_that_dies_before_its_first_204_shows_why(self):
        # Any POST answered 204 stands in for ClickHouse's table creation here.
        clickhouse = PushServer()
        self.addCleanup(clickhouse.server_close)
        self.addCleanup(clickhouse.shutdown)
        with tempfile.TemporaryDirectory() as tmp:
            result = subprocess.run(
                [os.path.join(SCRIPTS, "aot-cache"), "train", "--url", "http://127.0.0.1:9/",
                 "--clickhouse", clickhouse.url, "--output", os.path.join(tmp, "a.aot"),
                 "--log", os.path.join(tmp, "train.log"), "--start-timeout", "30", "--",
                 "sh", "-c", "echo 'startup failed: CLICKHOUSE_TABLE events is missing'; exit 3"],
                capture_output=True, text=True)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("exited with 3 before its first 204", result.stderr)
        self.assertIn("startup failed: CLICKHOUSE_TABLE events is missing", result.stderr)

    def test_a_clickhouse_that_never_answers_is_said_plainly(self):
        # Not a traceback of urllib: the message names the URL and the reason.
        with self.assertRaises(RuntimeError) as raised:
            aotcache.prepare_table("http://127.0.0.1:9/", deadline_s=1)
        self.assertIn("ClickHouse at http://127.0.0.1:9/ did not answer", str(raised.exception))


class InputsTest(unittest.TestCase):
    """scripts/aot-cache-inputs on a made-up JDK and jars, compared as the check compares."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.jdk = os.path.join(self.dir, "jdk")
        for path, content in [("release", "JAVA_VERSION=\"25.0.3\""), ("lib/modules", "m"),
                              ("lib/server/libjvm.so", "jvm")]:
            self.write(os.path.join("jdk", path), content)
        self.jar("app/classpath/function.jar", "Main.class", b"one")
        self.jar("app/libs/a.jar", "A.class", b"a")
        self.jar("app/libs/b.jar", "B.class", b"b")
        self.classpath = self.write(
            "classpath", "%s/app/classpath/*:%s/app/libs/a.jar:%s/app/libs/b.jar" % (
                (self.dir,) * 3))

    def write(self, relative, content):
        path = os.path.join(self.dir, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)
        return path

    def jar(self, relative, entry, content):
        path = os.path.join(self.dir, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with zipfile.ZipFile(path, "w") as z:
            z.writestr(zipfile.ZipInfo(entry, (1980, 1, 1, 0, 0, 0)), content)
        os.utime(path, (1, 1))  # Jib's fixed time: the time tells nothing
        return path

    def inputs(self, classpath=None, flags=("-XX:MaxRAMPercentage=50",)):
        return subprocess.run([INPUTS, self.jdk, classpath or self.classpath] + list(flags),
                              check=True, capture_output=True, text=True).stdout.splitlines()

    def test_the_same_jdk_class_path_and_jars_match(self):
        trained = self.inputs()
        same, why = aotcache.compare_inputs(trained, self.inputs())
        self.assertTrue(same, why)
        # The wildcard is expanded: the jar under classpath/ is one of the inputs.
        self.assertTrue(any(line.endswith("/app/classpath/function.jar") for line in trained))

    def test_a_jar_rebuilt_with_the_same_name_size_and_time_does_not_match(self):
        trained = self.inputs()
        self.jar("app/classpath/function.jar", "Main.class", b"two")
        same, why = aotcache.compare_inputs(trained, self.inputs())
        self.assertFalse(same)
        self.assertIn("function.jar", why)

    def test_another_class_path_order_does_not_match(self):
        trained = self.inputs()
        swapped = self.write("swapped", "%s/app/classpath/*:%s/app/libs/b.jar:%s/app/libs/a.jar"
                             % ((self.dir,) * 3))
        self.assertFalse(aotcache.compare_inputs(trained, self.inputs(swapped))[0])

    def test_another_jdk_build_or_other_flags_do_not_match(self):
        trained = self.inputs()
        self.assertFalse(aotcache.compare_inputs(trained, self.inputs(flags=()))[0])
        self.write("jdk/lib/modules", "another build")
        same, why = aotcache.compare_inputs(trained, self.inputs())
        self.assertFalse(same)
        self.assertIn("lib/modules", why)

    def test_an_empty_training_list_never_matches(self):
        self.assertFalse(aotcache.compare_inputs([], [])[0])


class ImageCommandTest(unittest.TestCase):
    """The bench's copy of the image's start command: Jib's entrypoint and /app layout."""

    def test_the_bench_starts_the_function_as_jibs_entrypoint_does(self):
        with tempfile.TemporaryDirectory() as tmp:
            repo, work = os.path.join(tmp, "repo"), os.path.join(tmp, "work")
            target = os.path.join(repo, "function", "target")
            os.makedirs(target)
            shutil.copy(os.path.join(coldstart.REPO, "function", "pom.xml"),
                        os.path.join(repo, "function"))
            deps = []
            for name in ["core-0.1.0-SNAPSHOT.jar", "b.jar", "a.jar"]:
                deps.append(os.path.join(tmp, "m2", name))
                os.makedirs(os.path.dirname(deps[-1]), exist_ok=True)
                open(deps[-1], "w").close()
            for name in ["function-0.1.0-SNAPSHOT.jar", "function.jar"]:
                open(os.path.join(target, name), "w").close()
            with open(os.path.join(target, "runtime-classpath.txt"), "w") as f:
                f.write(":".join(deps))
            saved = coldstart.REPO, coldstart.WORK
            coldstart.REPO, coldstart.WORK = repo, work
            try:
                command, classpath_file = coldstart.image_command("java")
            finally:
                coldstart.REPO, coldstart.WORK = saved
            app = os.path.join(work, "image", "app")
            # function/pom.xml's jvmFlags and mainClass, after the container's sizing.
            self.assertEqual(command, [
                "java", "-XX:MaxRAM=512m", "-XX:+UseSerialGC", "-XX:MaxRAMPercentage=50",
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", "@" + classpath_file, "dev.pubsubclickhouse.function.Main"])
            # Jib's packaged layout: the module's jar (not the shaded one), then the
            # dependencies in the build's order, every file at Jib's fixed time.
            with open(classpath_file) as f:
                self.assertEqual(f.read(), ":".join(
                    [app + "/classpath/*"] + [app + "/libs/" + n
                                              for n in ["core-0.1.0-SNAPSHOT.jar", "b.jar",
                                                        "a.jar"]]))
            self.assertEqual(os.listdir(os.path.join(app, "classpath")),
                             ["function-0.1.0-SNAPSHOT.jar"])
            for root, dirs, files in os.walk(app):
                for name in dirs + files:
                    self.assertEqual(os.stat(os.path.join(root, name)).st_mtime, 1, name)


@unittest.skipUnless(os.path.exists(JDK25 + "/bin/javac"), "needs Temurin 25 at " + JDK25)
class RealJvmTest(unittest.TestCase):
    """A real JDK 25 and a program of 60 classes: with its cache they come from the cache; with
    the cache missing (what a dropped cache looks like) they do not, and the verdict says so."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        src = os.path.join(self.dir, "src", "dev", "pubsubclickhouse", "selftest")
        os.makedirs(src)
        body = "".join("static class C%d { int v() { return %d; } }\n" % (i, i) for i in range(60))
        calls = "".join("s += new C%d().v();\n" % i for i in range(60))
        with open(os.path.join(src, "Main.java"), "w") as f:
            f.write("package dev.pubsubclickhouse.selftest;\npublic class Main {\n%s"
                    "public static void main(String[] a) { int s = 0;\n%s"
                    "System.out.println(s); } }\n" % (body, calls))
        classes = os.path.join(self.dir, "classes")
        subprocess.run([JDK25 + "/bin/javac", "-d", classes, os.path.join(src, "Main.java")],
                       check=True)
        self.jar = os.path.join(self.dir, "app.jar")
        subprocess.run([JDK25 + "/bin/jar", "--create", "--file", self.jar, "-C", classes, "."],
                       check=True)
        self.cache = os.path.join(self.dir, "app.aot")
        subprocess.run([JDK25 + "/bin/java", "-XX:AOTCacheOutput=" + self.cache, "-cp", self.jar,
                        "dev.pubsubclickhouse.selftest.Main"], check=True, capture_output=True)

    def run_with(self, cache):
        return subprocess.run(
            [JDK25 + "/bin/java", "-XX:AOTCache=" + cache, "-Xlog:class+load=info:stdout",
             "-cp", self.jar, "dev.pubsubclickhouse.selftest.Main"],
            capture_output=True, text=True).stdout.splitlines()

    def test_the_verdict_tells_a_used_cache_from_a_dropped_one(self):
        passed, why = aotcache.verdict(self.run_with(self.cache))
        self.assertTrue(passed, why)
        passed, why = aotcache.verdict(self.run_with(self.cache + ".missing"))
        self.assertFalse(passed, why)
        self.assertIn("0 of 61 classes", why)


if __name__ == "__main__":
    unittest.main()
