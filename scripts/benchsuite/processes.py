"""Processes the suite starts and measures: servers, wrk, /proc counters."""

import glob
import json
import os
import re
import resource
import signal
import subprocess
import time
import urllib.error
import urllib.request

from .settings import (BENCHMARKS_JAR, CH_URL, FUNCTION_JAR, IMAGE_JAVA, PEER_JVM, PORTS, REPO,
                       SERVICE_JVM, TABLES)


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds():
    """CPU seconds all processes of the machine spent busy (from /proc/stat)."""
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def memory_kib(pid):
    status = {}
    for line in open("/proc/%d/status" % pid):
        key, _, value = line.partition(":")
        status[key] = value.strip()
    return int(status["VmRSS"].split()[0]), int(status["VmHWM"].split()[0])


def context_switches(pid):
    total = 0
    for path in glob.glob("/proc/%d/task/*/status" % pid):
        try:
            for line in open(path):
                if line.startswith("voluntary_ctxt_switches") or line.startswith(
                    "nonvoluntary_ctxt_switches"
                ):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def push_body(message_id):
    data = (
        "eyJldmVudF90aW1lIjoiMjAyNS0xMi0zMCAxMjowMDowMCIsInNlcnZpY2UiOiJhcGkiLCJsZXZlbCI6IklORk8iLC"
        "JtZXNzYWdlIjoiUFJFLURBVEFGTE9XIFRFU1QifQ=="
    )
    return (
        '{"message":{"data":"%s","messageId":"%s","publishTime":"2026-01-15T12:00:00.000Z"},'
        '"subscription":"projects/bench/subscriptions/bench-push"}' % (data, message_id)
    ).encode()


def post_once(port, message_id, timeout=5):
    request = urllib.request.Request(
        "http://127.0.0.1:%d/" % port,
        data=push_body(message_id),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status


def wait_for_204(port, process, deadline_s=60, interval=0.005):
    """Seconds from now until a push request is answered 204 (polled every `interval`)."""
    start = time.monotonic()
    n = 0
    while time.monotonic() - start < deadline_s:
        if process is not None and process.poll() is not None:
            raise RuntimeError("process on port %d exited with %s" % (port, process.returncode))
        n += 1
        try:
            if post_once(port, "ready-%d-%d" % (port, n)) == 204:
                return time.monotonic() - start
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(interval)
    raise RuntimeError("no 204 from port %d after %d s" % (port, deadline_s))


def service_env(table="push_ours", port=PORTS["ours"], extra=None):
    """The service's environment: the suite's ClickHouse, database bench, one table."""
    env = dict(os.environ)
    for key in list(env):
        if key.startswith(("CLICKHOUSE_", "BATCH_", "MAX_", "TABLE_")):
            del env[key]
    env.update(
        CLICKHOUSE_URL=CH_URL,
        CLICKHOUSE_DATABASE="bench",
        CLICKHOUSE_TABLE=table,
        PORT=str(port),
        SUMMARY_INTERVAL_SECONDS="3600",
    )
    env.update(extra or {})
    return env


class Server:
    """A process that serves HTTP, with its output in a log file."""

    def __init__(self, name, command, env, port, logfile):
        self.name, self.command, self.env, self.port = name, command, env, port
        self.log = open(logfile, "w")
        self.process = None

    def start(self):
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            self.command, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True, cwd=REPO,
        )
        return self

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def jar(path):
    return os.path.join(REPO, path)


# The CPUs the push targets run on, and those wrk and ClickHouse run on (taskset lists); None:
# everything shares every CPU (--shared-cpus, or a machine with one CPU).
CPU_LAYOUT = {"service": None, "load": None}


def one_cpu_service_layout():
    """The last CPU for the service under test, the others for wrk and ClickHouse; None with one
    CPU."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    return {"service": str(cpus[-1]), "load": ",".join(str(c) for c in cpus[:-1])}


def pinned(command, role):
    cpus = CPU_LAYOUT[role]
    return command if cpus is None else ["taskset", "-c", cpus] + command


def pin_process(pid, cpus, check=True):
    """Moves every thread of the running process `pid` onto `cpus` (a taskset list)."""
    subprocess.run(["taskset", "-a", "-p", "-c", cpus, str(pid)], check=check,
                   stdout=subprocess.DEVNULL)


def server_command(name):
    """The command of push target `name` on the service's CPU: ours as shipped, a peer with
    PEER_JVM."""
    if name == "ours":
        return pinned([IMAGE_JAVA] + SERVICE_JVM + ["-jar", FUNCTION_JAR], "service")
    cls = {"bare": "BareHandler", "naive": "NaiveHandler", "async": "NaiveHandler"}[name]
    return pinned([IMAGE_JAVA] + PEER_JVM + [
        "-cp", BENCHMARKS_JAR,
        "dev.pubsubclickhouse.benchmarks." + cls, str(PORTS[name]),
    ], "service")


def target_env(name, extra=None):
    if name == "ours":
        return service_env(extra=extra)
    env = dict(os.environ, CLICKHOUSE_URL=CH_URL, NAIVE_TABLE="bench." + str(TABLES.get(name)))
    if name == "async":
        env["NAIVE_ASYNC_INSERT"] = "1"
    env.update(extra or {})
    return env


def wrk(port, connections, seconds, script="bench-push.lua", script_args=(), rate=None):
    """One wrk run; `script_args` go to the script's init(args). With `rate`, the requests leave
    on a schedule of `rate` a second in all (scripts/bench-push.lua only), else each connection
    sends its next request as soon as its answer arrives."""
    threads = 1 if connections < 2 else 2
    if rate:
        script_args = tuple(script_args) + ("rate=%.3f" % (rate / threads),)
    out = subprocess.run(
        pinned(["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % seconds, "--timeout",
                "10s", "-s", os.path.join(REPO, "scripts", script),
                "http://127.0.0.1:%d/" % port]
               + (["--"] + list(script_args) if script_args else []), "load"),
        capture_output=True, text=True, check=True,
    ).stdout
    return parse_wrk_output(out)


def parse_wrk_output(out):
    """What wrk printed with scripts/bench-push.lua: its WRKJSON line, and the answers other
    than 2xx or 3xx (wrk counts them only in its own summary)."""
    line = [l for l in out.splitlines() if l.startswith("WRKJSON ")]
    if not line:
        raise RuntimeError("wrk printed no result:\n" + out)
    result = json.loads(line[0][len("WRKJSON "):])
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    result["non_2xx"] = int(non2xx.group(1)) if non2xx else 0
    return result
