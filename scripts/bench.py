#!/usr/bin/env python3
"""The benchmark suite of docs/performance.md (GitHub issue 6); run it through scripts/bench.

Every comparison is measured side by side in this one run, because this machine is noisy and only
ratios from one run hold. Parts: encoder (JMH), push end to end (ours, the bare Functions
Framework handler, the naive one-INSERT-per-message handler, the ClickHouse ceiling), cold start,
backfill (1, 2, 4 tasks, and Beam's ClickHouseIO on the DirectRunner). It prints a table, checks
the floors, and writes docs/perf/results-<date>.json, docs/perf/results-<date>.csv and
docs/perf/push-throughput.svg. Standard library only.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CH_PORT = int(os.environ.get("BENCH_CLICKHOUSE_PORT", "18700"))
# tmpfs by default: on this VM's ext4 disk (mounted with discard) every part ClickHouse writes
# costs 4-20 ms of kernel time, growing during a run, which made results depend on the order the
# targets ran in. The "insertcost" part measures that side by side (tmpfs vs disk) in every run.
CH_DIR = os.environ.get(
    "BENCH_CLICKHOUSE_DIR",
    "/dev/shm/bench-clickhouse" if os.path.isdir("/dev/shm") else "/tmp/bench-clickhouse")
CH_DISK_DIR = os.environ.get("BENCH_CLICKHOUSE_DISK_DIR", "/tmp/bench-clickhouse-disk")
CH_DISK_PORT = CH_PORT + 1
CH_URL = "http://127.0.0.1:%d" % CH_PORT
WORK = os.environ.get("BENCH_WORK_DIR", "/tmp/bench-work")
PORTS = {"bare": 18712, "ours": 18711, "naive": 18713}
PAGE_SERVER_PORT = 18790
TABLES = {"ours": "push_ours", "naive": "push_naive", "bare": None}
JDK25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"
# The function image runs eclipse-temurin:25-jre; where Temurin 25 is missing, JDK 17 (whose
# requests then run on platform threads, see function/PushServer.java).
IMAGE_JAVA = JDK25 if os.path.exists(JDK25) else "java"

# What production runs: the function image's flags (function/pom.xml, Jib) in the default
# 512 MiB container. -XX:MaxRAM=512m makes the JVM size itself as in that container: a 256 MiB
# heap (50%) and, unlike a bare -Xmx256m on this 24 GB machine, an 8 MiB initial heap (1/64), so
# the heap is committed only as it is used, as it would be there; the serial collector is what
# the JVM picks in a container with under 2 CPUs or 1792 MiB.
SERVICE_JVM = ["-XX:MaxRAM=512m", "-XX:MaxRAMPercentage=50", "-XX:+UseSerialGC"]
BACKFILL_JVM = ["-Xmx1536m"]  # 75% of the job's default 2 GiB

SEED_TABLE_COLUMNS = "(event_time DateTime, service String, level String, message String)"

# Price inputs of the cost model: published list prices, us-central1 (Tier 1), as of 2025-06.
# Not fetched (no web access here): re-check them at cloud.google.com/run/pricing and
# cloud.google.com/dataflow/pricing before quoting.
PRICES = {
    "as_of": "2025-06 (list prices, us-central1 / Tier 1; re-check before quoting)",
    "run_vcpu_second_request_based": 0.000024,
    "run_gib_second_request_based": 0.0000025,
    "run_requests_per_million": 0.40,
    "run_vcpu_second_instance_based": 0.000018,
    "run_gib_second_instance_based": 0.000002,
    "dataflow_streaming_vcpu_hour": 0.069,
    "dataflow_streaming_gb_hour": 0.003557,
    "dataflow_pd_gb_hour": 0.000054,
    "dataflow_streaming_engine_compute_unit_hour": 0.089,
    "hours_per_month": 730,
}

# Measured beside ours by default, to show what limits it.
DEFAULT_VARIANTS = [
    "null:engine=Null",  # ours into an ENGINE = Null table: ClickHouse parses, writes no part
    "jdk17:java=java",  # ours on JDK 17: requests wait on platform threads
]

FLOORS = {
    "push_vs_bare_at_256": 0.40,
    "push_p99_over_bare_ms": 100.0,
    "push_vs_naive_at_256": 20.0,
    "rows_per_insert_at_256": 100.0,
    "encoder_seed_rows_per_s": 1_000_000,
    "backfill_one_task_rows_per_s": 300_000,
    "backfill_vs_beam": 2.0,
    "rss_mib_at_512": 512.0,
    "cold_start_s": 3.0,
}


def log(message):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), message), flush=True)


# ---------------------------------------------------------------------------------------------
# ClickHouse
# ---------------------------------------------------------------------------------------------


def ch(sql, body=None, params=None, timeout=120, base=None):
    query = {"query": sql} if body is not None else {}
    if params:
        query.update(params)
    url = (base or CH_URL) + "/?" + urllib.parse.urlencode(query)
    data = body if body is not None else sql.encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=timeout) as r:
        return r.read().decode()


def ch_row(sql):
    return ch(sql).strip().split("\t")


def start_clickhouse():
    env = dict(os.environ, CLICKHOUSE_LOCAL_PORT=str(CH_PORT), CLICKHOUSE_LOCAL_DIR=CH_DIR)
    script = os.path.join(REPO, "scripts", "clickhouse-local")
    # A fresh server for every run: no parts, merges or logs from an earlier run.
    subprocess.run([script, "stop"], env=env, check=False)
    shutil.rmtree(os.path.join(CH_DIR, "data"), ignore_errors=True)
    subprocess.run([script, "start"], env=env, check=True, stdout=subprocess.DEVNULL)
    pid = int(open(os.path.join(CH_DIR, "server.pid")).read().strip())
    ch("CREATE DATABASE IF NOT EXISTS bench")
    for table in ["push_ours", "push_naive", "ceiling", "backfill", "beam", "coldstart"]:
        ch(
            "CREATE TABLE IF NOT EXISTS bench.%s %s ENGINE = MergeTree ORDER BY event_time"
            % (table, SEED_TABLE_COLUMNS)
        )
    return pid


def stop_clickhouse():
    env = dict(os.environ, CLICKHOUSE_LOCAL_PORT=str(CH_PORT), CLICKHOUSE_LOCAL_DIR=CH_DIR)
    subprocess.run([os.path.join(REPO, "scripts", "clickhouse-local"), "stop"], env=env)


def ch_now():
    return ch("SELECT toString(now64(6))").strip()


def insert_stats(table, t0, t1):
    """INSERTs that finished in [t0, t1] into bench.<table>, from system.query_log."""
    ch("SYSTEM FLUSH LOGS")
    row = ch_row(
        "SELECT countIf(type = 'QueryFinish'), countIf(type != 'QueryFinish'),"
        " sumIf(written_rows, type = 'QueryFinish'),"
        " sumIf(ProfileEvents['MergeTreeDataWriterBlocks'], type = 'QueryFinish'),"
        " sumIf(ProfileEvents['UserTimeMicroseconds'] + ProfileEvents['SystemTimeMicroseconds'],"
        " type = 'QueryFinish'),"
        " avgIf(query_duration_ms, type = 'QueryFinish'),"
        " quantileIf(0.99)(query_duration_ms, type = 'QueryFinish')"
        " FROM system.query_log WHERE query_kind = 'Insert' AND type != 'QueryStart'"
        " AND has(tables, 'bench.%s')"
        " AND event_time_microseconds BETWEEN toDateTime64('%s', 6) AND toDateTime64('%s', 6)"
        % (table, t0, t1)
    )
    return {
        "inserts": int(row[0]),
        "failed_inserts": int(row[1]),
        "inserted_rows": int(row[2]),
        "parts_written": int(row[3]),
        "insert_query_cpu_s": int(row[4]) / 1e6,
        "insert_ms_mean": float(row[5]) if row[5] not in ("nan", "") else None,
        "insert_ms_p99": float(row[6]) if row[6] not in ("nan", "") else None,
    }


def truncate(table):
    try:
        ch("TRUNCATE TABLE bench.%s" % table)
    except urllib.error.HTTPError:
        pass  # an ENGINE = Null table has nothing to truncate


def active_parts(table):
    return int(
        ch("SELECT count() FROM system.parts WHERE database = 'bench' AND table = '%s' AND active"
           % table).strip()
    )


# ---------------------------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------------------------


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
    env = dict(os.environ)
    for key in list(env):
        if key.startswith("CLICKHOUSE_") or key.startswith("BATCH_") or key.startswith("MAX_"):
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


def server_command(name, java=IMAGE_JAVA, jvm=None):
    jvm = list(SERVICE_JVM if jvm is None else jvm)
    if name == "ours":
        return [java] + jvm + ["-jar", jar("function/target/function.jar")]
    cls = {"bare": "BareHandler", "naive": "NaiveHandler"}[name]
    return [java] + jvm + [
        "-cp", jar("benchmarks/target/benchmarks.jar"),
        "dev.pubsubclickhouse.benchmarks." + cls, str(PORTS[name]),
    ]


def target_env(name, extra=None):
    if name == "ours":
        return service_env(extra=extra)
    env = dict(os.environ, CLICKHOUSE_URL=CH_URL, NAIVE_TABLE="bench.push_naive")
    env.update(extra or {})
    return env


# ---------------------------------------------------------------------------------------------
# wrk
# ---------------------------------------------------------------------------------------------


def wrk(port, connections, seconds):
    threads = 1 if connections < 2 else 2
    out = subprocess.run(
        ["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % seconds, "--timeout", "10s",
         "-s", os.path.join(REPO, "scripts", "bench-push.lua"), "http://127.0.0.1:%d/" % port],
        capture_output=True, text=True, check=True,
    ).stdout
    line = [l for l in out.splitlines() if l.startswith("WRKJSON ")]
    if not line:
        raise RuntimeError("wrk printed no result:\n" + out)
    result = json.loads(line[0][len("WRKJSON "):])
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    result["non_2xx"] = int(non2xx.group(1)) if non2xx else 0
    return result


# ---------------------------------------------------------------------------------------------
# Parts
# ---------------------------------------------------------------------------------------------


def build(args):
    if args.skip_build:
        return
    log("building core, function, benchmarks, benchmarks-beam, backfill-job")
    subprocess.run(
        ["mvn", "-q", "-B", "-DskipTests", "-P", "bench-beam", "package",
         "-pl", "core,function,benchmarks,benchmarks-beam,backfill-job", "-am"],
        cwd=REPO, check=True,
    )


def build_patched(patches):
    """Builds function.jar from HEAD plus the patches in a scratch copy; returns its path."""
    tree = os.path.join(WORK, "patched-tree")
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
    for patch in patches:
        subprocess.run(["git", "apply", os.path.abspath(patch)], cwd=tree, check=True)
    log("building the patched function.jar (%s)" % ", ".join(patches))
    subprocess.run(["mvn", "-q", "-B", "-DskipTests", "-Dspotless.check.skip=true", "package",
                    "-pl", "function", "-am"], cwd=tree, check=True)
    return os.path.join(tree, "function", "target", "function.jar")


def run_insert_cost(args):
    """The same 50-row INSERT into a MergeTree table, alternately on a server whose data is on
    tmpfs (the suite's) and on one whose data is on this machine's disk: ClickHouse's own CPU per
    INSERT (query_log), side by side."""
    log("insert cost: one 50-row INSERT, ClickHouse data on tmpfs vs on disk")
    env = dict(os.environ, CLICKHOUSE_LOCAL_PORT=str(CH_DISK_PORT), CLICKHOUSE_LOCAL_DIR=CH_DISK_DIR)
    script = os.path.join(REPO, "scripts", "clickhouse-local")
    subprocess.run([script, "stop"], env=env, check=False)
    shutil.rmtree(os.path.join(CH_DISK_DIR, "data"), ignore_errors=True)
    subprocess.run([script, "start"], env=env, check=True, stdout=subprocess.DEVNULL)
    disk = "http://127.0.0.1:%d" % CH_DISK_PORT
    try:
        body = urllib.request.urlopen(urllib.request.Request(
            CH_URL + "/", data=b"SELECT toDateTime('2025-12-30 12:00:00'), 'api', 'INFO',"
            b" 'PRE-DATAFLOW TEST' FROM numbers(50) FORMAT RowBinary")).read()
        results = {}
        for base in [CH_URL, disk]:
            ch("CREATE DATABASE IF NOT EXISTS bench", base=base)
            ch("DROP TABLE IF EXISTS bench.insert_cost", base=base)
            ch("CREATE TABLE bench.insert_cost %s ENGINE = MergeTree ORDER BY event_time"
               % SEED_TABLE_COLUMNS, base=base)
        n = 60 if args.quick else 150
        for i in range(n):
            for base in [CH_URL, disk]:
                ch("INSERT INTO bench.insert_cost FORMAT RowBinary", body=body,
                   params={"async_insert": "0", "log_comment": "insert_cost"}, base=base)
        time.sleep(1)
        for label, base in [("tmpfs", CH_URL), ("disk", disk)]:
            ch("SYSTEM FLUSH LOGS", base=base)
            row = ch("SELECT count(), avg(query_duration_ms),"
                     " avg(ProfileEvents['UserTimeMicroseconds']) / 1000,"
                     " avg(ProfileEvents['SystemTimeMicroseconds']) / 1000,"
                     " quantile(0.9)(ProfileEvents['SystemTimeMicroseconds']) / 1000"
                     " FROM system.query_log WHERE type = 'QueryFinish' AND query_kind = 'Insert'"
                     " AND log_comment = 'insert_cost'", base=base).strip().split("\t")
            results[label] = {"inserts": int(row[0]), "duration_ms": float(row[1]),
                              "user_cpu_ms": float(row[2]), "system_cpu_ms": float(row[3]),
                              "system_cpu_ms_p90": float(row[4])}
            log("  %-5s %d INSERTs: %.2f ms each, ClickHouse CPU %.2f ms user + %.2f ms system"
                % (label, int(row[0]), float(row[1]), float(row[2]), float(row[3])))
        results["tmpfs_dir"], results["disk_dir"] = CH_DIR, CH_DISK_DIR
        return results
    finally:
        subprocess.run([script, "stop"], env=env, check=False)


def run_encoder(args):
    log("encoder (JMH)")
    out = os.path.join(WORK, "jmh.json")
    timing = ["-wi", "2", "-w", "1", "-i", "3", "-r", "1"] if args.quick else []
    subprocess.run(
        ["java", "-jar", jar("benchmarks/target/benchmarks.jar"), "EncoderBenchmark",
         "-rf", "json", "-rff", out] + timing,
        cwd=REPO, check=True, stdout=subprocess.DEVNULL,
    )
    scores = {}
    for entry in json.load(open(out)):
        name = entry["benchmark"].rsplit(".", 1)[1]
        scores[name] = {
            "rows_per_s": entry["primaryMetric"]["score"],
            "error": entry["primaryMetric"]["scoreError"],
        }
    return {
        "seed_rows_per_s": scores["seedRow"]["rows_per_s"],
        "mixed20_rows_per_s": scores["mixedRow20Columns"]["rows_per_s"],
        "raw": scores,
        "threads": 1,
    }


def measure_push(name, server, chpid, connections, args):
    """One warm-up and one measured wrk run of `name` at `connections`."""
    table = TABLES[name]
    wrk(server.port, connections, args.warmup)
    if table:
        truncate(table)
    time.sleep(0.5)
    t0 = ch_now()
    cpu0, chcpu0, cs0 = cpu_seconds(server.process.pid), cpu_seconds(chpid), context_switches(
        server.process.pid)
    load0 = os.getloadavg()[0]
    busy0, wrk0 = machine_busy_seconds(), children_cpu_seconds()
    result = wrk(server.port, connections, args.duration)
    busy1, wrk1 = machine_busy_seconds(), children_cpu_seconds()
    cpu1, chcpu1, cs1 = cpu_seconds(server.process.pid), cpu_seconds(chpid), context_switches(
        server.process.pid)
    t1 = ch_now()
    rss, hwm = memory_kib(server.process.pid)
    seconds = result["duration_us"] / 1e6
    ok = result["requests"] - result["non_2xx"]
    row = {
        "target": name,
        "concurrency": connections,
        "requests": result["requests"],
        "non_2xx": result["non_2xx"],
        "socket_errors": result["errors_connect"] + result["errors_read"] + result["errors_write"]
        + result["errors_timeout"],
        "seconds": seconds,
        "msgs_per_s": ok / seconds,
        "p50_ms": result["p50_us"] / 1000,
        "p90_ms": result["p90_us"] / 1000,
        "p99_ms": result["p99_us"] / 1000,
        "max_ms": result["max_us"] / 1000,
        "service_cpu_s": cpu1 - cpu0,
        "service_cpu_us_per_msg": (cpu1 - cpu0) * 1e6 / max(ok, 1),
        "context_switches_per_msg": (cs1 - cs0) / max(ok, 1),
        "clickhouse_cpu_s": chcpu1 - chcpu0,
        "clickhouse_cpu_us_per_msg": (chcpu1 - chcpu0) * 1e6 / max(ok, 1),
        "wrk_cpu_s": wrk1 - wrk0,
        "wrk_cpu_us_per_msg": (wrk1 - wrk0) * 1e6 / max(ok, 1),
        # CPU the rest of the machine used meanwhile (other engineers' work): the noise indicator
        "others_cpu_cores": max(0.0, (busy1 - busy0) - (cpu1 - cpu0) - (chcpu1 - chcpu0)
                                - (wrk1 - wrk0)) / seconds,
        "rss_mib": rss / 1024,
        "peak_rss_mib": hwm / 1024,
        "load_avg_1m_before": load0,
    }
    if table:
        time.sleep(1.2)  # query_log flush interval is 500 ms; let the last INSERTs land
        stats = insert_stats(table, t0, t1)
        row.update(stats)
        row["active_parts"] = active_parts(table)
        row["rows_per_insert"] = stats["inserted_rows"] / max(stats["inserts"], 1)
        row["rows_in_table"] = int(ch("SELECT count() FROM bench.%s" % table).strip())
        truncate(table)  # no merges of this run under the next one
    log(
        "  %-7s c=%-3d %8.0f msg/s  p50 %7.2f ms  p99 %7.2f ms  non2xx %d  rss %.0f MiB"
        "  cpu us/msg svc %.0f ch %.0f wrk %.0f  others %.2f cores%s"
        % (name, connections, row["msgs_per_s"], row["p50_ms"], row["p99_ms"], row["non_2xx"],
           row["rss_mib"], row["service_cpu_us_per_msg"], row["clickhouse_cpu_us_per_msg"],
           row["wrk_cpu_us_per_msg"], row["others_cpu_cores"],
           ("  inserts %d rows/insert %.1f parts %d insert %.1f ms (CH)" % (
               row["inserts"], row["rows_per_insert"], row["active_parts"],
               row["insert_ms_mean"] or 0)) if table else "")
    )
    return row


def run_ceiling(row_counts):
    out = subprocess.run(
        ["java", "-cp", jar("benchmarks/target/benchmarks.jar"),
         "dev.pubsubclickhouse.benchmarks.ClickHouseCeiling", CH_URL, "bench.ceiling",
         ",".join(str(n) for n in row_counts), "3"],
        capture_output=True, text=True, check=True, cwd=REPO,
    ).stdout
    return [json.loads(l[len("CEILING "):]) for l in out.splitlines() if l.startswith("CEILING ")]


def parse_variant(text, index):
    """NAME:KEY=VALUE,... where KEY is an environment variable of the service, or jvm (flags
    separated by spaces), java (a java executable; jdk25 for Temurin 25), jar (a function.jar;
    patched for the --patch build) or engine (the table engine, e.g. Null)."""
    name, _, spec = text.partition(":")
    variant = {"name": name, "env": {}, "jvm": list(SERVICE_JVM), "java": IMAGE_JAVA,
               "jar": jar("function/target/function.jar"), "port": 18731 + index,
               "table": "push_v%d" % index, "engine": "MergeTree ORDER BY event_time"}
    for item in filter(None, spec.split(",")):
        key, _, value = item.partition("=")
        if key == "engine":
            variant["engine"] = value
        elif key == "jvm":
            variant["jvm"] = value.split()
        elif key == "java":
            variant[key] = JDK25 if value == "jdk25" else value
        elif key == "jar":
            variant[key] = value
        else:
            variant["env"][key] = value
    return variant


def run_push(args, chpid):
    log("push end to end: starting ours, bare, naive (%s %s)" % (IMAGE_JAVA, " ".join(SERVICE_JVM)))
    servers = {}
    for name in ["bare", "ours", "naive"]:
        servers[name] = Server(
            name, server_command(name), target_env(name), PORTS[name],
            os.path.join(WORK, "%s.log" % name),
        ).start()
    for v in args.variants:
        ch("DROP TABLE IF EXISTS bench.%s" % v["table"])
        ch("CREATE TABLE bench.%s %s ENGINE = %s" % (v["table"], SEED_TABLE_COLUMNS, v["engine"]))
        TABLES[v["name"]] = v["table"]
        command = [v["java"]] + v["jvm"] + ["-jar", v["jar"]]
        servers[v["name"]] = Server(
            v["name"], command,
            service_env(table=v["table"], port=v["port"], extra=v["env"]), v["port"],
            os.path.join(WORK, "%s.log" % v["name"]),
        ).start()
    order = ["bare", "ours"] + [v["name"] for v in args.variants] + ["naive"]
    try:
        for name, server in servers.items():
            wait_for_204(server.port, server.process)
        rows = []
        middle = order[1:-1]
        samples = []
        for round_ in range(args.rounds):
            for level, connections in enumerate(args.concurrency):
                # bare first, naive last (it leaves the most parts); the rest rotates from level
                # to level and from round to round, so no target always runs after another
                shift = (level + round_ * 2) % len(middle)
                for name in [order[0]] + middle[shift:] + middle[:shift] + [order[-1]]:
                    row = measure_push(name, servers[name], chpid, connections, args)
                    row["round"] = round_ + 1
                    samples.append(row)
        # Of the rounds of one target and concurrency, keep the one the rest of the machine
        # disturbed least (least CPU used by other processes meanwhile); all are in "samples".
        best = {}
        for row in samples:
            key = (row["target"], row["concurrency"])
            if key not in best or row["others_cpu_cores"] < best[key]["others_cpu_cores"]:
                best[key] = row
        rows = list(best.values())
        ours_rows = [r for r in rows if r["target"] == "ours"]
        log("ClickHouse ceiling: the same rows as one RowBinary INSERT")
        counts = sorted({max(r["inserted_rows"], 1000) for r in ours_rows} | {1_000_000})
        ceiling = run_ceiling(counts)
        for r in ours_rows:
            n = max(r["inserted_rows"], 1000)
            match = [c for c in ceiling if c["format"] == "RowBinaryWithDefaults" and c["rows"] == n]
            if match:
                rows.append({
                    "target": "ceiling", "concurrency": r["concurrency"], "rows": n,
                    "seconds": match[0]["best_s"], "msgs_per_s": match[0]["rows_per_s"],
                })
        rank = {name: i for i, name in enumerate(order + ["ceiling"])}
        rows.sort(key=lambda r: (r["concurrency"], rank[r["target"]]))
        return {"rows": rows, "samples": samples, "rounds": args.rounds,
                "ceiling_inserts": ceiling, "jvm": SERVICE_JVM, "order": order,
                "variants": args.variants}
    finally:
        for server in servers.values():
            server.stop()


def run_cold_start(args):
    log("cold start: process start to the first 204")
    repeats = 2 if args.quick else 3
    cds = os.path.join(WORK, "function-appcds.jsa")
    aot = os.path.join(WORK, "function.aot")
    results = {}

    def train(java, jvm):
        """Runs the service under a training workload and stops it (SIGTERM) to write the archive."""
        server = Server("train", [java] + jvm + ["-jar", jar("function/target/function.jar")],
                        service_env(table="coldstart", port=18720), 18720,
                        os.path.join(WORK, "train.log")).start()
        wait_for_204(18720, server.process)
        wrk(18720, 16, 3)
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(60)
        server.log.close()

    for path in [cds, aot]:
        if os.path.exists(path):
            os.remove(path)
    train("java", SERVICE_JVM + ["-XX:ArchiveClassesAtExit=" + cds])
    have25 = os.path.exists(JDK25)
    if have25:
        train(JDK25, SERVICE_JVM + ["-XX:AOTCacheOutput=" + aot])
    variants = [("bare handler, JDK 17", "java", None, "bare")]
    if have25:
        variants += [
            ("ours, JDK 25 (image)", JDK25, SERVICE_JVM, "ours"),
            ("ours, JDK 25 + AOT cache (JEP 483/514)", JDK25, SERVICE_JVM + ["-XX:AOTCache=" + aot],
             "ours"),
        ]
    variants += [
        ("ours, JDK 17", "java", SERVICE_JVM, "ours"),
        ("ours, JDK 17 + AppCDS", "java", SERVICE_JVM + ["-XX:SharedArchiveFile=" + cds], "ours"),
        ("ours, JDK 17 + AppCDS + C1 only", "java",
         SERVICE_JVM + ["-XX:SharedArchiveFile=" + cds, "-XX:TieredStopAtLevel=1"], "ours"),
    ]
    for cpus in (["0-1", "1"] if not args.quick else ["0-1"]):
        for label, java, jvm, kind in variants:
            if cpus == "1" and "C1" in label:
                continue
            times = []
            for i in range(repeats):
                port = 18721
                if kind == "ours":
                    command = [java] + jvm + ["-jar", jar("function/target/function.jar")]
                    env = service_env(table="coldstart", port=port)
                else:
                    command = [java] + SERVICE_JVM + [
                        "-cp", jar("benchmarks/target/benchmarks.jar"),
                        "dev.pubsubclickhouse.benchmarks.BareHandler", str(port)]
                    env = dict(os.environ)
                command = ["taskset", "-c", cpus] + command
                server = Server("cold", command, env, port, os.path.join(WORK, "cold.log"))
                start = time.monotonic()
                server.start()
                try:
                    wait_for_204(port, server.process, interval=0.002)
                    times.append(time.monotonic() - start)
                finally:
                    server.stop()
                time.sleep(0.5)
            key = "%s [%s CPU]" % (label, "2" if cpus == "0-1" else "1")
            results[key] = {"median_s": statistics.median(times), "runs_s": times,
                            "cpus": 2 if cpus == "0-1" else 1}
            log("  %-55s %.2f s (%s)" % (key, statistics.median(times),
                                          ", ".join("%.2f" % t for t in times)))
    return {
        "variants": results,
        "appcds_archive_mib": os.path.getsize(cds) / 2**20 if os.path.exists(cds) else None,
        "aot_cache_mib": os.path.getsize(aot) / 2**20 if os.path.exists(aot) else None,
    }


def run_backfill(args):
    log("backfill: locally served BigQuery pages into ClickHouse")
    total = 2_000_000 if args.quick else 4_000_000
    page_rows = 50_000
    server = subprocess.Popen(
        ["java", "-cp", jar("benchmarks/target/benchmarks.jar"),
         "dev.pubsubclickhouse.benchmarks.BigQueryPageServer", str(PAGE_SERVER_PORT), str(total),
         str(page_rows)],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )
    results = {"total_rows": total, "page_rows": page_rows, "jvm": BACKFILL_JVM, "tasks": {}}
    try:
        line = server.stdout.readline()
        if not line.startswith("PAGESERVER"):
            raise RuntimeError("page server did not start: " + line)
        for tasks in [1, 2, 4]:
            ch("TRUNCATE TABLE bench.backfill")
            processes = []
            for index in range(tasks):
                env = dict(os.environ, CLICKHOUSE_URL=CH_URL, CLICKHOUSE_DATABASE="bench",
                           BIGQUERY_ENDPOINT="http://127.0.0.1:%d" % PAGE_SERVER_PORT,
                           CLOUD_RUN_TASK_INDEX=str(index), CLOUD_RUN_TASK_COUNT=str(tasks))
                processes.append(subprocess.Popen(
                    ["java"] + BACKFILL_JVM + ["-jar", jar("backfill-job/target/backfill-job.jar"),
                     "--inputTableSpec=bench:ds.seed", "--clickHouseTable=backfill",
                     "--pageRows=%d" % page_rows, "--outputDeadletterTable=none",
                     "--checkpointTable=none", "--progressIntervalSeconds=3600"],
                    env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
            starts, ends, per_task = [], [], []
            for p in processes:
                out, _ = p.communicate(timeout=600)
                if p.returncode != 0:
                    raise RuntimeError("backfill task failed:\n" + out[-2000:])
                for l in out.splitlines():
                    if not l.startswith("{"):
                        continue
                    entry = json.loads(l)
                    stamp = datetime.datetime.fromisoformat(entry["time"][:26].rstrip("Z"))
                    if entry["message"] == "reading":
                        starts.append(stamp)
                    elif entry["message"] == "backfill finished":
                        ends.append(stamp)
                        per_task.append(entry.get("rowsPerSecond"))
            seconds = (max(ends) - min(starts)).total_seconds()
            count = int(ch("SELECT count() FROM bench.backfill").strip())
            results["tasks"][str(tasks)] = {
                "rows_per_s": count / seconds, "seconds": seconds, "rows_in_table": count,
                "per_task_rows_per_s": per_task,
            }
            log("  %d task(s): %.0f rows/s (%d rows in %.2f s)" % (tasks, count / seconds, count,
                                                                   seconds))
    finally:
        server.terminate()
        server.wait()
    ch("TRUNCATE TABLE bench.backfill")
    beam_rows = 1_000_000 if args.quick else 2_000_000
    # Two successful runs, the faster kept (in Beam's favour). A failed attempt (seen with the
    # driver's default connection pool: a bundle waited 180 s for a connection) is recorded and
    # run again; at most four attempts of 300 s.
    attempts = []
    beam = None
    for attempt in range(4):
        ch("TRUNCATE TABLE bench.beam")
        started = time.monotonic()
        try:
            out = subprocess.run(
                ["java"] + BACKFILL_JVM + [
                    "-jar", jar("benchmarks-beam/target/benchmarks-beam.jar"),
                    # compress=0: clickhouse-jdbc 0.6.4 cannot read a 26.x server's compressed
                    # answers; async_insert=0 as ours and naive send it (the server's default is 1)
                    # HTTP_URL_CONNECTION: with the driver's default Apache pool the pipeline
                    # waited 180 s for a pooled connection and failed in 3 of 5 runs here
                    "jdbc:clickhouse://127.0.0.1:%d/bench?compress=0"
                    "&custom_settings=async_insert=0&http_connection_provider=HTTP_URL_CONNECTION"
                    % CH_PORT, "beam",
                    str(beam_rows)],
                capture_output=True, text=True, timeout=300,
            )
            line = [l for l in out.stdout.splitlines() if l.startswith("BEAM ")]
            causes = [l.strip() for l in out.stderr.splitlines()
                      if "Exception" in l and not l.strip().startswith("at ")]
            error = None if line else (causes[-1] if causes else "no result")[:300]
        except subprocess.TimeoutExpired:
            line, error = [], "no result after 300 s"
        written = int(ch("SELECT count() FROM bench.beam").strip())
        attempts.append({"attempt": attempt + 1, "ok": bool(line), "error": error,
                         "seconds": time.monotonic() - started, "rows_in_table": written})
        if line:
            run = json.loads(line[0][len("BEAM "):])
            run["rows_in_table"] = written
            attempts[-1]["rows_per_s"] = run["rows_per_s"]
            if beam is None or run["rows_per_s"] > beam["rows_per_s"]:
                beam = run
            if sum(1 for a in attempts if a["ok"]) == 2:
                break
            continue
        log("  Beam attempt %d failed after %.0f s (%d rows written): %s"
            % (attempt + 1, time.monotonic() - started, written, error))
    if beam is None:
        beam = {"failed": True, "rows": beam_rows, "rows_per_s": None}
    beam["attempts"] = attempts
    beam["beam_version"] = "2.71.0"
    ch("TRUNCATE TABLE bench.beam")
    results["beam_clickhouseio"] = beam
    if beam.get("rows_per_s"):
        log("  Beam ClickHouseIO (DirectRunner): %.0f rows/s" % beam["rows_per_s"])
    return results


# ---------------------------------------------------------------------------------------------
# Cost model
# ---------------------------------------------------------------------------------------------


def cost_model(push):
    """CPU-seconds per million messages measured here, turned into Cloud Run cost, next to the
    cheapest always-on Dataflow streaming job. Every price and every assumption is in the output."""
    ours = {r["concurrency"]: r for r in push["rows"] if r["target"] == "ours"}
    r = ours.get(256) or ours[max(ours)]
    messages = max(r["msgs_per_s"] * r["seconds"], 1)
    cpu_per_million = r["service_cpu_s"] / messages * 1e6
    ch_cpu_per_million = r["clickhouse_cpu_s"] / messages * 1e6
    p = PRICES
    # Cloud Run defaults (terraform/variables.tf): 1 vCPU, 512 MiB, concurrency 250.
    # Assumption: instances run at 60% CPU (Cloud Run's scaling target), so an instance is
    # billable for cpu / 0.6 seconds per message; with request-based billing (cpu_idle = true, the
    # default) it is billed only while it has requests, plus $0.40 per million requests; with
    # instance-based billing (cpu_idle = false) there is no request fee but an instance is billed
    # for its whole life (at least one while messages flow).
    utilisation = 0.6
    billable_s = cpu_per_million / utilisation
    second_request = 1 * p["run_vcpu_second_request_based"] + 0.5 * p["run_gib_second_request_based"]
    second_instance = (1 * p["run_vcpu_second_instance_based"]
                       + 0.5 * p["run_gib_second_instance_based"])
    # per million when CPU, not the 100 ms rounding, decides the billable time (high volume)
    request_based_per_million = billable_s * second_request + p["run_requests_per_million"]
    instance_msgs_per_s = 1e6 / billable_s  # one instance's sustainable rate at 60% CPU
    # The cheapest always-on Dataflow streaming job: one n1-standard-1 worker (1 vCPU, 3.75 GB)
    # with Streaming Engine and a 30 GB persistent disk, plus Streaming Engine data processed
    # (legacy per-GB billing, $0.018/GB; newer jobs bill compute units). Assumption: one such
    # worker carries 5,000 seed-row messages/s (not measured here).
    dataflow_worker_hour = (p["dataflow_streaming_vcpu_hour"]
                            + 3.75 * p["dataflow_streaming_gb_hour"]
                            + 30 * p["dataflow_pd_gb_hour"])
    message_gb = 300 / 1e9  # a push-sized message with metadata, about 300 bytes
    hours = p["hours_per_month"]
    volumes = {}
    month_s = hours * 3600
    cpu_s_per_msg = cpu_per_million / 1e6
    for rate in [1, 10, 100, 1000, 10000]:
        millions = rate * month_s / 1e6
        # Request-based: an instance is billable while it has a request, each busy period rounded
        # up to 100 ms; a push takes 5-30 ms here, so below 10 msg/s about 100 ms per message, from
        # 10 msg/s on the instance is billable all the time; more instances once CPU needs them.
        busy_instances = max(min(1.0, rate * 0.1), rate * cpu_s_per_msg / utilisation)
        run_request = (busy_instances * month_s * second_request
                       + millions * p["run_requests_per_million"])
        # Instance-based: whole instances, at least one while messages flow.
        instances = max(1, -(-rate * cpu_s_per_msg // utilisation))
        run_instance = instances * month_s * second_instance
        workers = max(1, -(-rate // 5000))
        dataflow = workers * dataflow_worker_hour * hours + millions * 1e6 * message_gb * 0.018
        volumes[str(rate)] = {
            "messages_per_month_millions": round(millions, 2),
            "cloud_run_request_based_usd_month": round(run_request, 2),
            "cloud_run_request_based_busy_instances": round(busy_instances, 3),
            "cloud_run_instance_based_usd_month": round(run_instance, 2),
            "cloud_run_instances": int(instances),
            "dataflow_usd_month": round(dataflow, 2),
            "dataflow_workers": workers,
        }
    return {
        "measured_at_concurrency": r["concurrency"],
        "service_cpu_s_per_million": cpu_per_million,
        "clickhouse_cpu_s_per_million": ch_cpu_per_million,
        "utilisation_assumed": utilisation,
        "cloud_run_billable_instance_s_per_million": billable_s,
        "cloud_run_request_based_usd_per_million_when_busy": request_based_per_million,
        "cloud_run_request_based_usd_per_million_without_request_fee":
            request_based_per_million - p["run_requests_per_million"],
        "cloud_run_instance_msgs_per_s_at_60pct": instance_msgs_per_s,
        "cloud_run_instance_based_usd_month_per_instance": hours * 3600 * second_instance,
        "dataflow_cheapest_usd_month": dataflow_worker_hour * hours,
        "dataflow_worker_msgs_per_s_assumed": 5000,
        "message_bytes_assumed": 300,
        "by_volume_msgs_per_s": volumes,
        "prices": p,
    }


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------


def push_floors(push, target):
    """The push floors for one target (ours, or a variant measured beside it)."""
    checks = []

    def check(name, value, limit, passed, text):
        checks.append({"floor": name, "target": target, "value": value, "limit": limit,
                       "pass": bool(passed), "text": text})

    by = {(r["target"], r["concurrency"]): r for r in push["rows"]}
    ours, bare, naive = by.get((target, 256)), by.get(("bare", 256)), by.get(("naive", 256))
    if ours and bare:
        ratio = ours["msgs_per_s"] / bare["msgs_per_s"]
        check("push c=256 >= 40% of bare handler", ratio, FLOORS["push_vs_bare_at_256"],
              ratio >= FLOORS["push_vs_bare_at_256"],
              "%.0f / %.0f msg/s = %.1f%%" % (ours["msgs_per_s"], bare["msgs_per_s"], 100 * ratio))
        limit = bare["p99_ms"] + FLOORS["push_p99_over_bare_ms"]
        check("push c=256 p99 <= bare p99 + 100 ms", ours["p99_ms"], limit,
              ours["p99_ms"] <= limit, "%.1f ms vs %.1f + 100 ms" % (ours["p99_ms"], bare["p99_ms"]))
    if ours and naive:
        ratio = ours["msgs_per_s"] / max(naive["msgs_per_s"], 1e-9)
        check("push c=256 >= 20x naive baseline", ratio, FLOORS["push_vs_naive_at_256"],
              ratio >= FLOORS["push_vs_naive_at_256"],
              "%.0f / %.0f msg/s = %.1fx" % (ours["msgs_per_s"], naive["msgs_per_s"], ratio))
    if ours and "rows_per_insert" in ours:
        check("push c=256 >= 100 rows per INSERT", ours["rows_per_insert"],
              FLOORS["rows_per_insert_at_256"],
              ours["rows_per_insert"] >= FLOORS["rows_per_insert_at_256"],
              "%.1f rows/INSERT (%d INSERTs)" % (ours["rows_per_insert"], ours["inserts"]))
    ours512 = by.get((target, 512))
    if ours512:
        check("service RSS < 512 MiB at c=512", ours512["peak_rss_mib"], FLOORS["rss_mib_at_512"],
              ours512["peak_rss_mib"] < FLOORS["rss_mib_at_512"],
              "peak %.0f MiB (at the end %.0f MiB)" % (ours512["peak_rss_mib"],
                                                      ours512["rss_mib"]))
    return checks


def floors(results):
    checks = []

    def check(name, value, limit, passed, text):
        checks.append({"floor": name, "target": "ours", "value": value, "limit": limit,
                       "pass": bool(passed), "text": text})

    push = results.get("push")
    if push:
        checks += push_floors(push, "ours")
    enc = results.get("encoder")
    if enc:
        check("encoder >= 1,000,000 seed rows/s/core", enc["seed_rows_per_s"],
              FLOORS["encoder_seed_rows_per_s"],
              enc["seed_rows_per_s"] >= FLOORS["encoder_seed_rows_per_s"],
              "%.0f rows/s" % enc["seed_rows_per_s"])
    back = results.get("backfill")
    if back:
        one = back["tasks"]["1"]["rows_per_s"]
        check("backfill 1 task >= 300,000 rows/s", one, FLOORS["backfill_one_task_rows_per_s"],
              one >= FLOORS["backfill_one_task_rows_per_s"], "%.0f rows/s" % one)
        beam = back["beam_clickhouseio"]["rows_per_s"]
        if beam:
            check("backfill 1 task >= 2x Beam ClickHouseIO", one / beam, FLOORS["backfill_vs_beam"],
                  one / beam >= FLOORS["backfill_vs_beam"],
                  "%.0f / %.0f rows/s = %.1fx" % (one, beam, one / beam))
    cold = results.get("cold_start")
    if cold:
        key = next(k for k in ("ours, JDK 25 (image) [2 CPU]", "ours, JDK 17 [2 CPU]")
                   if k in cold["variants"])
        value = cold["variants"][key]["median_s"]
        check("cold start to first 204 < 3 s", value, FLOORS["cold_start_s"],
              value < FLOORS["cold_start_s"], "%.2f s (%s, median)" % (value, key))
    return checks


def print_report(results):
    push = results.get("push")
    if push:
        print("\nPush end to end (seed row, wrapped envelopes; %s s measured after %s s warm-up)"
              % (results["args"]["duration"], results["args"]["warmup"]))
        header = ("%-8s %5s %9s %8s %8s %6s %8s %8s %6s %7s %7s %7s %6s"
                  % ("target", "conc", "msg/s", "p50 ms", "p99 ms", "non2xx", "INSERTs",
                     "rows/ins", "parts", "RSS MiB", "svc us", "CH us", "others"))
        print(header)
        print("-" * len(header))
        for r in push["rows"]:
            if r["target"] == "ceiling":
                continue
            print("%-8s %5d %9.0f %8.2f %8.2f %6d %8s %8s %6s %7.0f %7.0f %7.0f %6.2f" % (
                r["target"], r["concurrency"], r["msgs_per_s"], r["p50_ms"], r["p99_ms"],
                r["non_2xx"], r.get("inserts", "-"),
                ("%.1f" % r["rows_per_insert"]) if "rows_per_insert" in r else "-",
                r.get("active_parts", "-"), r["rss_mib"], r["service_cpu_us_per_msg"],
                r["clickhouse_cpu_us_per_msg"], r["others_cpu_cores"]))
        print("(svc us / CH us: CPU microseconds per message of the service and of ClickHouse;"
              " others: cores other processes used meanwhile; RSS: at the end of the point)")
        for v in push.get("variants", []):
            print("variant %s: %s%s%s" % (v["name"], " ".join("%s=%s" % kv for kv in v["env"].items()),
                                          " jvm=" + " ".join(v["jvm"]), " java=" + v["java"]))
        print("\nRatios (same run):")
        by = {(r["target"], r["concurrency"]): r for r in push["rows"]}
        print("%5s %12s %12s %14s %14s" % ("conc", "ours/bare", "ours/naive", "ours/ceiling",
                                             "p99 ours-bare"))
        for c in results["args"]["concurrency"]:
            o, b, n, k = (by.get((t, c)) for t in ["ours", "bare", "naive", "ceiling"])
            if not o:
                continue
            extra = "".join("  %s %.1f%%/%.1fms" % (v["name"], 100 * by[(v["name"], c)]["msgs_per_s"]
                                                      / b["msgs_per_s"], by[(v["name"], c)]["p99_ms"])
                            for v in push.get("variants", []) if (v["name"], c) in by and b)
            print("%5d %11.1f%% %11.1fx %13.1f%% %11.1f ms%s" % (
                c, 100 * o["msgs_per_s"] / b["msgs_per_s"] if b else float("nan"),
                o["msgs_per_s"] / max(n["msgs_per_s"], 1e-9) if n else float("nan"),
                100 * o["msgs_per_s"] / k["msgs_per_s"] if k else float("nan"),
                o["p99_ms"] - b["p99_ms"] if b else float("nan"), extra))
        for c in push["ceiling_inserts"]:
            print("ClickHouse ceiling: %9d rows as one %-21s INSERT: %.3f s = %.0f rows/s"
                  % (c["rows"], c["format"], c["best_s"], c["rows_per_s"]))
    cost = results.get("insert_cost")
    if cost:
        print("\nClickHouse CPU per 50-row INSERT (query_log), same run: tmpfs %.2f + %.2f ms,"
              " this machine's disk %.2f + %.2f ms (user + system)" % (
                  cost["tmpfs"]["user_cpu_ms"], cost["tmpfs"]["system_cpu_ms"],
                  cost["disk"]["user_cpu_ms"], cost["disk"]["system_cpu_ms"]))
    enc = results.get("encoder")
    if enc:
        print("\nEncoder (JMH, one thread): seed row %.0f rows/s, 20-column row %.0f rows/s"
              % (enc["seed_rows_per_s"], enc["mixed20_rows_per_s"]))
    cold = results.get("cold_start")
    if cold:
        print("\nCold start, process start to first 204 (median):")
        for key, v in cold["variants"].items():
            print("  %-60s %.2f s" % (key, v["median_s"]))
    back = results.get("backfill")
    if back:
        print("\nBackfill (%d seed rows, %d-row pages):" % (back["total_rows"], back["page_rows"]))
        for tasks, v in back["tasks"].items():
            print("  %s task(s): %10.0f rows/s" % (tasks, v["rows_per_s"]))
        beam = back["beam_clickhouseio"]
        failed = [a for a in beam.get("attempts", []) if not a["ok"]]
        if beam.get("rows_per_s"):
            print("  Beam %s ClickHouseIO, DirectRunner: %.0f rows/s (%d rows; best of %s)%s" % (
                beam["beam_version"], beam["rows_per_s"], beam["rows"],
                "/".join("%.0f" % a["rows_per_s"] for a in beam["attempts"] if a["ok"]),
                " after %d failed attempt(s): %s" % (len(failed), failed[0]["error"])
                if failed else ""))
        else:
            print("  Beam ClickHouseIO: every attempt failed: %s" % failed[-1]["error"])
    cost = results.get("cost")
    if cost:
        print("\nCost model (prices as of %s):" % PRICES["as_of"])
        print("  measured: %.1f service CPU-s and %.1f ClickHouse CPU-s per million messages"
              " (ours, c=%d)" % (cost["service_cpu_s_per_million"],
                                 cost["clickhouse_cpu_s_per_million"],
                                 cost["measured_at_concurrency"]))
        print("  Cloud Run request-based: $%.4f per million at high volume (of which $%.2f request"
              " fee); instance-based: $%.2f per instance-month, one instance carries %.0f msg/s at"
              " 60%% CPU" % (cost["cloud_run_request_based_usd_per_million_when_busy"],
                        PRICES["run_requests_per_million"],
                        cost["cloud_run_instance_based_usd_month_per_instance"],
                        cost["cloud_run_instance_msgs_per_s_at_60pct"]))
        print("  %8s %12s %16s %16s %14s" % ("msg/s", "M msg/month", "Run req-based $",
                                              "Run inst-based $", "Dataflow $"))
        for rate, v in cost["by_volume_msgs_per_s"].items():
            print("  %8s %12.1f %16.2f %16.2f %14.2f" % (
                rate, v["messages_per_month_millions"], v["cloud_run_request_based_usd_month"],
                v["cloud_run_instance_based_usd_month"], v["dataflow_usd_month"]))
    print("\nFloors (ours as shipped: %s %s):" % (IMAGE_JAVA, " ".join(SERVICE_JVM)))
    for f in results["floors"]:
        print("  %-4s %-42s %s" % ("PASS" if f["pass"] else "MISS", f["floor"], f["text"]))
    for name, checks in results.get("variant_floors", {}).items():
        print("  variant %s: %s" % (name, "; ".join(
            "%s %s" % ("PASS" if f["pass"] else "MISS", f["floor"].replace("push c=256 ", ""))
            for f in checks)))


def render_report(results):
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        print("scripts/bench %s, %s; %s; ClickHouse %s" % (
            " ".join(results.get("argv", [])), results["date"], results["machine"]["cpu"],
            results["machine"].get("clickhouse")))
        print_report(results)
        print("\nLoad average before %.2f, after %.2f (2 cores: above ~1 means others were busy)"
              % (results["load_avg_before"][0], results["load_avg_after"][0]))
    return buffer.getvalue()


def render_markdown(results):
    """The tables of docs/performance.md, from one results file."""
    out = []
    push = results.get("push")
    if push:
        out.append("| target | conc. | msg/s | p50 ms | p99 ms | non-2xx | INSERTs | rows/INSERT"
                   " | active parts | parts written | RSS MiB | service CPU µs/msg"
                   " | ClickHouse CPU µs/msg | other load (cores) |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in push["rows"]:
            if r["target"] == "ceiling":
                continue
            out.append("| %s | %d | %s | %.2f | %.2f | %d | %s | %s | %s | %s | %.0f | %.0f | %.0f"
                       " | %.2f |" % (
                           r["target"], r["concurrency"], "{:,.0f}".format(r["msgs_per_s"]),
                           r["p50_ms"], r["p99_ms"], r["non_2xx"], r.get("inserts", "–"),
                           ("%.1f" % r["rows_per_insert"]) if "rows_per_insert" in r else "–",
                           r.get("active_parts", "–"), r.get("parts_written", "–"),
                           r["rss_mib"], r["service_cpu_us_per_msg"],
                           r["clickhouse_cpu_us_per_msg"], r["others_cpu_cores"]))
        out.append("")
        by = {(r["target"], r["concurrency"]): r for r in push["rows"]}
        names = ["ours"] + [v["name"] for v in push.get("variants", [])]
        out.append("| conc. | " + " | ".join("%s / bare" % n for n in names)
                   + " | ours / naive | ours / ceiling | p99 ours − bare |")
        out.append("|---:|" + "---:|" * (len(names) + 3))
        for c in results["args"]["concurrency"]:
            b, n, k, o = by.get(("bare", c)), by.get(("naive", c)), by.get(("ceiling", c)), by.get(
                ("ours", c))
            if not (b and o):
                continue
            cells = ["%.1f%%" % (100 * by[(x, c)]["msgs_per_s"] / b["msgs_per_s"])
                     if (x, c) in by else "–" for x in names]
            out.append("| %d | %s | %s | %s | %+.1f ms |" % (
                c, " | ".join(cells),
                ("%.1f×" % (o["msgs_per_s"] / n["msgs_per_s"])) if n else "–",
                ("%.2f%%" % (100 * o["msgs_per_s"] / k["msgs_per_s"])) if k else "–",
                o["p99_ms"] - b["p99_ms"]))
        out.append("")
    out.append("| floor | target | result | measured |")
    out.append("|---|---|---|---|")
    for f in results.get("floors", []):
        out.append("| %s | ours | **%s** | %s |" % (f["floor"], "PASS" if f["pass"] else "MISS",
                                                     f["text"]))
    variants = results.get("variant_floors", {})
    if variants:
        floors_ = [f["floor"] for f in next(iter(variants.values()))]
        out.append("")
        out.append("| variant | " + " | ".join(f.replace("push c=256 ", "c=256: ")
                                               for f in floors_) + " |")
        out.append("|---|" + "---|" * len(floors_))
        for name, checks in variants.items():
            out.append("| %s | %s |" % (name, " | ".join(
                "%s (%s)" % ("PASS" if f["pass"] else "MISS", f["text"]) for f in checks)))
    return "\n".join(out) + "\n"


def write_csv(results, path):
    push = results.get("push")
    columns = ["target", "concurrency", "msgs_per_s", "p50_ms", "p99_ms", "non_2xx", "inserts",
               "rows_per_insert", "active_parts", "parts_written", "rss_mib", "peak_rss_mib",
               "service_cpu_us_per_msg", "context_switches_per_msg", "clickhouse_cpu_s"]
    with open(path, "w") as f:
        f.write(",".join(columns) + "\n")
        for r in (push or {}).get("rows", []):
            f.write(",".join(
                ("%.3f" % r[c]) if isinstance(r.get(c), float) else str(r.get(c, ""))
                for c in columns) + "\n")


def write_svg(results, path):
    """Throughput and p99 against concurrency: ours, bare handler, naive, ClickHouse ceiling."""
    rows = results["push"]["rows"]
    levels = results["args"]["concurrency"]
    series = [("ours", "#1a73e8", "ours (group commit)", ""),
              ("bare", "#5f6368", "bare handler (204)", ""),
              ("naive", "#d93025", "naive: INSERT per message", ""),
              ("ceiling", "#188038", "ClickHouse ceiling: one RowBinary INSERT", "")]
    palette = ["#9334e6", "#e8710a", "#12b5cb", "#f538a0", "#7cb342", "#795548"]
    for i, v in enumerate(results["push"].get("variants", [])):
        series.append((v["name"], palette[i % len(palette)], "variant " + v["name"], "5,4"))
    import math

    W, H, M = 1000, 430, 70
    pw = (W - 3 * M) / 2
    ph = H - 2 * M

    def xpos(c, left):
        i = levels.index(c)
        return left + (pw * i / max(len(levels) - 1, 1))

    def logy(v, lo, hi):
        v = max(v, lo)
        return M + ph - ph * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif"'
           ' font-size="12">' % (W, H + 80), '<rect width="100%" height="100%" fill="white"/>']
    panels = [("msgs_per_s", "messages/s (log scale)", M), ("p99_ms", "p99 latency, ms (log)",
                                                            2 * M + pw)]
    for key, title, left in panels:
        values = [r[key] for r in rows if key in r]
        values = [v for v in values if v and v > 0]
        lo = 10 ** math.floor(math.log10(min(values)))
        hi = 10 ** math.ceil(math.log10(max(values)))
        out.append('<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>'
                   % (left, M - 20, title))
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>'
                   % (left, M, pw, ph))
        decade = lo
        while decade <= hi:
            y = logy(decade, lo, hi)
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>'
                       % (left, y, left + pw, y))
            out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                       % (left - 5, y + 4, ("%g" % decade)))
            decade *= 10
        for c in levels:
            x = xpos(c, left)
            out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x, M + ph + 16, c))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">concurrent connections (wrk)</text>'
                   % (left + pw / 2, M + ph + 34))
        for target, colour, _, dash in series:
            points = [(xpos(r["concurrency"], left), logy(r[key], lo, hi)) for r in rows
                      if r["target"] == target and r.get(key)]
            if not points:
                continue
            out.append('<polyline fill="none" stroke="%s" stroke-width="2" stroke-dasharray="%s"'
                       ' points="%s"/>' % (colour, dash or "none",
                                          " ".join("%.1f,%.1f" % p for p in points)))
            for x, y in points:
                out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (x, y, colour))
    lx, ly = M, H + 8
    for target, colour, label, dash in series:
        width = 30 + 6.5 * len(label)
        if lx + width > W - 10:
            lx, ly = M, ly + 18
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"'
                   ' stroke-dasharray="%s"/>' % (lx, ly, lx + 18, ly, colour, dash or "none"))
        out.append('<text x="%d" y="%d">%s</text>' % (lx + 22, ly + 4, label))
        lx += width
    out.append('<text x="%d" y="%d" fill="#555">%s</text>' % (
        M, ly + 24, "One run of scripts/bench, %s; %s" % (results["date"], results["machine"]["cpu"])))
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


def machine_info():
    cpu = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = open("/proc/meminfo").readline().split()[1]

    def first_line(command):
        try:
            r = subprocess.run(command, capture_output=True, text=True)
            return (r.stdout + r.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return None

    java25 = None
    if os.path.exists(JDK25):
        java25 = first_line([JDK25, "-version"])
    return {
        "cpu": "%s, %d cores" % (cpu, os.cpu_count()),
        "memory_gib": round(int(mem) / 2**20, 1),
        "kernel": platform.release(),
        "java": first_line(["java", "-version"]),
        "java25": java25,
        "wrk": first_line(["wrk", "--version"]),
        "git_commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                                     capture_output=True, text=True).stdout.strip(),
    }


def main():
    parser = argparse.ArgumentParser(
        description="Benchmark suite (docs/performance.md). Side by side, one run.")
    parser.add_argument("--quick", action="store_true",
                        help="short runs (3 s warm-up, 5 s measured; smaller backfill; fewer"
                             " repeats): about 6 minutes instead of about 15")
    parser.add_argument("--only", default="encoder,insertcost,push,coldstart,backfill",
                        help="comma-separated parts to run (default: all)")
    parser.add_argument("--concurrency", default="1,16,64,256,512")
    parser.add_argument("--duration", type=int, default=None, help="measured seconds per point")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up seconds per point")
    parser.add_argument("--rounds", type=int, default=None,
                        help="measure every push point this many times (rotating the order) and"
                             " keep the sample other processes disturbed least (default 2, quick 1)")
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--variant", action="append", default=[],
                        help="an extra push target measured beside ours: NAME:KEY=VALUE,... with"
                             " service environment variables (e.g. MAX_CONCURRENT_INSERTS=4), or"
                             " jvm=FLAGS (space-separated), java=PATH, jar=PATH")
    parser.add_argument("--no-variants", action="store_true",
                        help="measure only ours, bare and naive (no default variants)")
    parser.add_argument("--patch", action="append", default=[],
                        help="a patch of the main code: built"
                             " in a scratch worktree and measured as the variant 'patched'")
    parser.add_argument("--out", default=os.path.join(REPO, "docs", "perf"))
    parser.add_argument("--keep-clickhouse", action="store_true",
                        help="leave the benchmark ClickHouse running afterwards")
    parser.add_argument("--markdown", action="store_true", help="with --report: also the tables")
    parser.add_argument("--report", metavar="RESULTS_JSON",
                        help="print the report of an earlier run's results file and exit")
    args = parser.parse_args()
    if args.report:
        results = json.load(open(args.report))
        if "push" in results:
            results["cost"] = cost_model(results["push"])
        print(render_report(results), end="")
        if args.markdown:
            print(render_markdown(results), end="")
        return
    args.concurrency = [int(c) for c in args.concurrency.split(",")]
    if not args.variant and not args.patch and not args.no_variants:
        args.variant = list(DEFAULT_VARIANTS)
    args.duration = args.duration or (5 if args.quick else 10)
    args.warmup = args.warmup or (3 if args.quick else 5)
    args.rounds = args.rounds or (1 if args.quick else 2)
    parts = set(args.only.split(","))
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)

    for tool in ["java", "mvn", "wrk", "curl", "taskset"]:
        if not shutil.which(tool):
            sys.exit("bench: %s is required" % tool)
    started = time.time()
    build(args)
    patched = build_patched(args.patch) if args.patch else None
    if patched and not any("jar=patched" in v for v in args.variant):
        args.variant.append("patched:jar=patched")
    args.variants = [parse_variant(v.replace("jar=patched", "jar=" + (patched or "")), i)
                     for i, v in enumerate(args.variant)]
    results = {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "machine": machine_info(),
        "args": {"quick": args.quick, "concurrency": args.concurrency, "rounds": args.rounds,
                 "duration": args.duration, "warmup": args.warmup, "parts": sorted(parts)},
        "load_avg_before": os.getloadavg(),
        "argv": sys.argv[1:],
    }
    log("starting ClickHouse on %s (data in %s)" % (CH_URL, CH_DIR))
    chpid = start_clickhouse()
    results["machine"]["clickhouse"] = ch("SELECT version()").strip()
    try:
        if "encoder" in parts:
            results["encoder"] = run_encoder(args)
        if "insertcost" in parts:
            results["insert_cost"] = run_insert_cost(args)
        if "push" in parts:
            results["push"] = run_push(args, chpid)
            results["cost"] = cost_model(results["push"])
        for part, key, function in [("coldstart", "cold_start", run_cold_start),
                                    ("backfill", "backfill", run_backfill)]:
            if part in parts:
                try:
                    results[key] = function(args)
                except Exception as e:  # keep what the other parts measured
                    log("%s failed: %s" % (part, e))
                    results.setdefault("errors", {})[part] = str(e)
    finally:
        if not args.keep_clickhouse:
            stop_clickhouse()
    results["load_avg_after"] = os.getloadavg()
    results["suite_seconds"] = time.time() - started
    results["floors"] = floors(results)
    if "push" in results:
        results["variant_floors"] = {v["name"]: push_floors(results["push"], v["name"])
                                     for v in results["push"]["variants"]}
    stamp = datetime.datetime.now().strftime("%Y-%m-%d")
    json_path = os.path.join(args.out, "results-%s.json" % stamp)
    json.dump(results, open(json_path, "w"), indent=1, sort_keys=False)
    written = [json_path]
    if "push" in results:
        csv_path = os.path.join(args.out, "results-%s.csv" % stamp)
        write_csv(results, csv_path)
        svg_path = os.path.join(args.out, "push-throughput.svg")
        write_svg(results, svg_path)
        written += [csv_path, svg_path]
    md_path = os.path.join(args.out, "results-%s.md" % stamp)
    open(md_path, "w").write(render_markdown(results))
    written.append(md_path)
    report = render_report(results)
    txt_path = os.path.join(args.out, "results-%s.txt" % stamp)
    open(txt_path, "w").write(report)
    written.append(txt_path)
    print(report, end="")
    print("Wrote " + ", ".join(os.path.relpath(p, REPO) for p in written))
    print("Suite took %.0f s" % results["suite_seconds"])


if __name__ == "__main__":
    main()
