"""Push into a cluster: the push service writing to a 2-shard cluster, beside the same service
writing to a single server (`scripts/bench cluster`, a run of its own, not one of the suite's parts).

The method is the suite's push part: function.jar as the image runs it, wrk with
scripts/bench-push.lua, a warm-up run, TRUNCATE, a measured run, and ClickHouse's own numbers from
system.query_log of every server.

  single   one ClickHouse server (scripts/clickhouse-local start), table bench.push (MergeTree)
  cluster  N servers (scripts/clickhouse-local cluster start), bench.push_local (MergeTree) on each,
           and on shard 0 bench.push = Distributed(local_cluster, bench, push_local,
           cityHash64(_pubsub_message_id)); the service writes bench.push with
           insert_distributed_sync=1 (its default)

Both keep their data on tmpfs and share the machine's cores with the services and wrk. The two
targets run at once and are measured in turn, the order alternating from round to round.
"""

import argparse
import datetime
import json
import os
import random
import shutil
import socket
import subprocess
import time

from .clickhouse import ch
from .machine import git_commit
from .processes import (Server, cpu_seconds, machine_busy_seconds, server_command, service_env,
                        wait_for_204, wrk)
from .settings import IMAGE_JAVA, REPO, SERVICE_JVM, log

BASE = "/dev/shm/cluster-push-bench" if os.path.isdir("/dev/shm") else "/tmp/cluster-push-bench"
SCRIPT = os.path.join(REPO, "scripts", "clickhouse-local")
MAX_SHARDS = 8
COLUMNS = ("(event_time DateTime, service String, level String, message String,"
           " _pubsub_message_id String)")


def free_ports(count):
    """The first of `count` consecutive ports nothing on this machine listens on: a ClickHouse
    already answering on a fixed port would be taken for ours."""
    for _ in range(200):
        base = random.randint(20000, 30000)
        try:
            for port in range(base, base + count):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
    raise RuntimeError("no %d free consecutive ports" % count)


def query(port, sql):
    return ch(sql, base="http://127.0.0.1:%d" % port).strip()


def clickhouse_local(command, env):
    subprocess.run(["bash", SCRIPT] + command, env=dict(os.environ, **env), check=True,
                   stdout=subprocess.DEVNULL)


class Target:
    """A ClickHouse (one server or a cluster) and the service that writes to it."""

    def __init__(self, name, ports, directories, parts_table):
        self.name, self.ports, self.directories = name, ports, directories
        self.parts_table = parts_table  # the MergeTree table on every server
        self.service = None

    def truncate(self):
        for port in self.ports:
            query(port, "TRUNCATE TABLE %s" % self.parts_table)

    def clickhouse_pids(self):
        pids = []
        for directory in self.directories:
            with open(os.path.join(directory, "server.pid")) as f:
                pids.append(int(f.read().strip()))
        return pids

    def start_service(self, port, work):
        env = service_env(table="push", port=port,
                          extra={"CLICKHOUSE_URL": "http://127.0.0.1:%d" % self.ports[0]})
        self.service = Server(self.name, server_command("ours"), env, port,
                              os.path.join(work, "service-%s.log" % self.name)).start()
        wait_for_204(port, self.service.process)

    def stop_service(self):
        if self.service:
            self.service.stop()


def single_env(port):
    return {"CLICKHOUSE_LOCAL_PORT": str(port), "CLICKHOUSE_LOCAL_DIR": BASE + "/single"}


def cluster_env(shards, http_port, tcp_port):
    return {"CLICKHOUSE_LOCAL_PORT": str(http_port), "CLICKHOUSE_LOCAL_TCP_PORT": str(tcp_port),
            "CLICKHOUSE_LOCAL_DIR": BASE + "/cluster", "CLICKHOUSE_LOCAL_SHARDS": str(shards)}


def start_single(env):
    port = int(env["CLICKHOUSE_LOCAL_PORT"])
    clickhouse_local(["stop"], env)
    shutil.rmtree(BASE + "/single", ignore_errors=True)
    clickhouse_local(["start"], env)
    query(port, "CREATE DATABASE bench")
    query(port, "CREATE TABLE bench.push %s ENGINE = MergeTree ORDER BY event_time" % COLUMNS)
    return Target("single", [port], [BASE + "/single"], "bench.push")


def start_cluster(env):
    shards, http_port = int(env["CLICKHOUSE_LOCAL_SHARDS"]), int(env["CLICKHOUSE_LOCAL_PORT"])
    clickhouse_local(["cluster", "stop"], env)
    shutil.rmtree(BASE + "/cluster", ignore_errors=True)
    clickhouse_local(["cluster", "start"], env)
    ports = [http_port + i for i in range(shards)]
    for port in ports:
        query(port, "CREATE DATABASE bench")
        query(port, "CREATE TABLE bench.push_local %s ENGINE = MergeTree ORDER BY event_time"
              % COLUMNS)
    query(ports[0], "CREATE TABLE bench.push AS bench.push_local ENGINE ="
          " Distributed(local_cluster, bench, push_local, cityHash64(_pubsub_message_id))")
    return Target("cluster", ports, [BASE + "/cluster/shard-%d" % i for i in range(shards)],
                  "bench.push_local")


def insert_stats(port, table, t0, t1, initial):
    """INSERTs that finished in [t0, t1] touching `table` on one server, from system.query_log.
    `initial`: the server the service writes to, where its own INSERTs are logged."""
    query(port, "SYSTEM FLUSH LOGS")
    row = query(port,
                "SELECT countIf(is_initial_query), sum(ProfileEvents['MergeTreeDataWriterBlocks']),"
                " quantileIf(0.99)(query_duration_ms, is_initial_query),"
                " countIf(type != 'QueryFinish')"
                " FROM system.query_log WHERE query_kind = 'Insert' AND type != 'QueryStart'"
                " AND has(tables, '%s') AND event_time_microseconds"
                " BETWEEN toDateTime64('%s', 6) AND toDateTime64('%s', 6)"
                % (table, t0, t1)).split("\t")
    return {"inserts": int(row[0]) if initial else None, "parts_written": int(row[1]),
            "insert_ms_p99": float(row[2]) if initial and row[2] not in ("nan", "") else None,
            "failed": int(row[3])}


def measure(target, port, connections, args):
    wrk(port, connections, args.warmup)
    target.truncate()
    time.sleep(0.5)
    t0 = query(target.ports[0], "SELECT toString(now64(6))")
    pids = target.clickhouse_pids()
    cpu0 = cpu_seconds(target.service.process.pid)
    ch0 = sum(cpu_seconds(p) for p in pids)
    busy0 = machine_busy_seconds()
    result = wrk(port, connections, args.duration)
    busy1 = machine_busy_seconds()
    cpu1 = cpu_seconds(target.service.process.pid)
    ch1 = sum(cpu_seconds(p) for p in pids)
    time.sleep(1.2)  # query_log is flushed every 500 ms: the last INSERTs reach it first
    t1 = query(target.ports[0], "SELECT toString(now64(6))")
    seconds = result["duration_us"] / 1e6
    ok = result["requests"] - result["non_2xx"]
    entry = insert_stats(target.ports[0], "bench.push", t0, t1, True)
    shards = []
    for shard_port in target.ports:
        stats = insert_stats(shard_port, target.parts_table, t0, t1, False)
        stats["rows"] = int(query(shard_port, "SELECT count() FROM %s" % target.parts_table))
        shards.append(stats)
    row = {
        "target": target.name, "concurrency": connections, "seconds": seconds,
        "msgs_per_s": ok / seconds, "p50_ms": result["p50_us"] / 1000,
        "p99_ms": result["p99_us"] / 1000, "non_2xx": result["non_2xx"],
        "service_inserts": entry["inserts"], "insert_ms_p99": entry["insert_ms_p99"],
        "failed_inserts": entry["failed"],
        "rows_per_insert": sum(s["rows"] for s in shards) / max(entry["inserts"], 1),
        "shards": shards,
        "service_cpu_us_per_msg": (cpu1 - cpu0) * 1e6 / max(ok, 1),
        "clickhouse_cpu_us_per_msg": (ch1 - ch0) * 1e6 / max(ok, 1),
        "others_cpu_cores": max(0.0, (busy1 - busy0) - (cpu1 - cpu0) - (ch1 - ch0)) / seconds,
    }
    log("  %-7s c=%-3d %8.0f msg/s  p50 %6.2f ms  p99 %6.2f ms  non2xx %d  INSERTs %d"
        "  parts per shard %s  rows per shard %s"
        % (target.name, connections, row["msgs_per_s"], row["p50_ms"], row["p99_ms"],
           row["non_2xx"], row["service_inserts"], [s["parts_written"] for s in shards],
           [s["rows"] for s in shards]))
    target.truncate()
    return row


def least_disturbed(samples):
    """Of the rounds of one target and concurrency, the one the rest of the machine disturbed
    least (least CPU used by other processes meanwhile), in the order the samples first name
    them."""
    best = {}
    for row in samples:
        key = (row["target"], row["concurrency"])
        if key not in best or row["others_cpu_cores"] < best[key]["others_cpu_cores"]:
            best[key] = row
    return list(best.values())


def kept_rows(samples):
    """Per target and concurrency, the round the rest of the machine disturbed least; single
    before cluster at each concurrency."""
    return sorted(least_disturbed(samples),
                  key=lambda r: (r["concurrency"], r["target"] != "single"))


def paired_ratios(samples):
    """Cluster over single for each round and concurrency: the two ran back to back, so their
    ratio suffers less from the rest of the machine than either number alone."""
    ratios = []
    for row in samples:
        if row["target"] != "cluster":
            continue
        single = [r for r in samples if r["target"] == "single"
                  and (r["round"], r["concurrency"]) == (row["round"], row["concurrency"])][0]
        ratios.append({"round": row["round"], "concurrency": row["concurrency"],
                       "cluster_over_single": row["msgs_per_s"] / single["msgs_per_s"],
                       "others_cpu_cores": max(row["others_cpu_cores"],
                                               single["others_cpu_cores"])})
    return ratios


def render(rows, ratios):
    """The markdown table of the kept rows and a line per paired ratio."""
    lines = ["| target | conc. | msg/s | p50 ms | p99 ms | non-2xx | service INSERTs | rows/INSERT"
             " | parts written per shard (per s) | rows per shard | ClickHouse p99 INSERT ms"
             " | service CPU µs/msg | ClickHouse CPU µs/msg | other load (cores) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|"]
    for r in rows:
        parts = ", ".join("%d (%.0f)" % (s["parts_written"], s["parts_written"] / r["seconds"])
                          for s in r["shards"])
        lines.append(
            "| %s | %d | %s | %.2f | %.2f | %d | %d | %.1f | %s | %s | %s | %.0f | %.0f | %.2f |"
            % (r["target"], r["concurrency"], format(round(r["msgs_per_s"]), ","), r["p50_ms"],
               r["p99_ms"], r["non_2xx"], r["service_inserts"], r["rows_per_insert"], parts,
               ", ".join(format(s["rows"], ",") for s in r["shards"]),
               "%.0f" % r["insert_ms_p99"] if r["insert_ms_p99"] is not None else "–",
               r["service_cpu_us_per_msg"], r["clickhouse_cpu_us_per_msg"],
               r["others_cpu_cores"]))
    lines.append("")
    for ratio in sorted(ratios, key=lambda r: (r["concurrency"], r["round"])):
        lines.append("c=%d round %d: cluster / single = %.2f (other load %.2f cores)"
                     % (ratio["concurrency"], ratio["round"], ratio["cluster_over_single"],
                        ratio["others_cpu_cores"]))
    return "\n".join(lines) + "\n"


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="scripts/bench cluster", description=__doc__.split("\n\n")[0],
        epilog="Writes docs/perf/runs/<date>/cluster-<date>.json (--out DIR to change).")
    parser.add_argument("--concurrency", default="64,256")
    parser.add_argument("--duration", type=int, default=10, help="measured seconds per point")
    parser.add_argument("--warmup", type=int, default=5, help="warm-up seconds per point")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--out", help="directory of the results file (docs/perf/runs/<date>)")
    parser.add_argument("--report", metavar="RESULTS_JSON",
                        help="print an earlier run's table again instead of measuring")
    args = parser.parse_args(argv)
    args.concurrency = [int(c) for c in args.concurrency.split(",")]
    if not 1 <= args.shards <= MAX_SHARDS:
        parser.error("--shards must be 1 to %d" % MAX_SHARDS)
    return args


def run(args):
    """Measures both targets at every concurrency, every round; returns the results."""
    work = os.path.join(BASE, "work")
    os.makedirs(work, exist_ok=True)
    service_ports = {"single": free_ports(1), "cluster": free_ports(1)}
    servers = [(["stop"], single_env(free_ports(1))),
               (["cluster", "stop"],
                cluster_env(args.shards, free_ports(MAX_SHARDS), free_ports(MAX_SHARDS)))]
    targets = []
    try:
        log("starting a single server and a %d-shard cluster (data in %s)" % (args.shards, BASE))
        targets.append(start_single(servers[0][1]))
        targets.append(start_cluster(servers[1][1]))
        for target in targets:
            target.start_service(service_ports[target.name], work)
        samples = []
        for round_ in range(args.rounds):
            for level, connections in enumerate(args.concurrency):
                order = targets if (round_ + level) % 2 == 0 else targets[::-1]
                for target in order:
                    row = measure(target, service_ports[target.name], connections, args)
                    row["round"] = round_ + 1
                    samples.append(row)
    finally:
        for target in targets:
            target.stop_service()
        for stop, env in servers:
            clickhouse_local(stop, env)
    return samples


def main(argv):
    args = parse_args(argv)
    if args.report:
        with open(args.report) as f:
            results = json.load(f)
        print(render(results["rows"], results["ratios"]), end="")
        return
    if not args.skip_build:
        log("building function.jar")
        subprocess.run(["mvn", "-B", "-q", "-pl", "function", "-am", "package", "-DskipTests"],
                       cwd=REPO, check=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    commit = git_commit()  # before the run writes anything into the tree
    samples = run(args)
    rows, ratios = kept_rows(samples), paired_ratios(samples)
    print(render(rows, ratios), end="")
    date = started.strftime("%Y-%m-%d")
    out = args.out or os.path.join(REPO, "docs", "perf", "runs", date)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "cluster-%s.json" % date)
    with open(path, "w") as f:
        json.dump({"started": started.isoformat(), "commit": commit, "java": IMAGE_JAVA,
                   "jvm": SERVICE_JVM, "shards": args.shards, "args": vars(args), "rows": rows,
                   "ratios": ratios, "samples": samples}, f, indent=1)
    log("wrote %s" % path)
