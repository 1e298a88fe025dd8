"""Part fleet: 1, 4 and 16 service processes against one ClickHouse, the load spread over them.

Each instance is its own JVM with the image's flags, sized as a one-vCPU instance; together they
get --fleet-cpus cores (one cgroup quota; where cgroups cannot be written, a core each by taskset),
so that a larger fleet is more, smaller instances, not more CPU.
One wrk per instance (one connection per thread, so that every 204 is matched to its message and
a nack is backed off as Pub/Sub does) keeps --fleet-concurrency requests in flight across the
fleet. Measured: messages/s, INSERTs/s (query_log, per second), active parts over time
(system.parts every 0.5 s), p50/p99, and lost messages: acknowledged ids missing from the table,
compared by value.
"""

import glob
import json
import os
import shutil
import subprocess
import threading
import time

from .clickhouse import ch, ch_now, ch_row
from .processes import Server, cpu_seconds, service_env, wait_for_204
from .settings import FLEET_PORT, FUNCTION_JAR, IMAGE_JAVA, REPO, SERVICE_JVM, WORK, log

CGROUP_ROOT = "/sys/fs/cgroup/cpu"
FLEET_TABLE = "fleet"
FLEET_COLUMNS = ("(event_time DateTime, service String, level String, message String,"
                 " _pubsub_message_id String)")
# What the seed row of scripts/bench-fleet.lua becomes in the table.
SEED_ROW = ["2025-12-30 12:00:00", "api", "INFO", "PRE-DATAFLOW TEST"]


class CpuShare:
    """The fleet's CPU: one cgroup (v1 cpu controller) for all its instances with a quota of
    `cores`, so that a larger fleet is more, smaller instances sharing the same CPU; where cgroups
    cannot be written, instances are pinned by taskset to a core each instead. Either way each JVM
    sizes itself as a one-vCPU Cloud Run instance (-XX:ActiveProcessorCount=1)."""

    def __init__(self, name, cores):
        self.group = os.path.join(CGROUP_ROOT, name)
        try:
            os.makedirs(self.group, exist_ok=True)
            period = int(open(os.path.join(self.group, "cpu.cfs_period_us")).read())
            with open(os.path.join(self.group, "cpu.cfs_quota_us"), "w") as f:
                f.write(str(int(period * cores)))
            self.how = "one cgroup, cpu quota %.2f cores for the whole fleet" % cores
        except OSError:
            self.close()
            self.group = None
            self.how = "taskset, one core each"

    def command(self, index, command):
        command = command[:1] + ["-XX:ActiveProcessorCount=1"] + command[1:]
        if self.group:
            return command
        return ["taskset", "-c", str(index % os.cpu_count())] + command

    def place(self, pid):
        """Puts a started process under the quota (after its JIT warm-up, outside it)."""
        if self.group:
            with open(os.path.join(self.group, "cgroup.procs"), "w") as f:
                f.write(str(pid))

    def close(self):
        if self.group and os.path.isdir(self.group):
            # the processes have ended; an empty group can be removed
            for _ in range(50):
                try:
                    os.rmdir(self.group)
                    return
                except OSError:
                    time.sleep(0.1)


def fleet_wrk(port, connections, seconds, out_dir, tag):
    """One wrk against one instance; returns its WRKFLEET result."""
    process = subprocess.Popen(
        ["wrk", "-t%d" % connections, "-c%d" % connections, "-d%ds" % seconds, "--timeout", "30s",
         "-s", os.path.join(REPO, "scripts", "bench-fleet.lua"), "http://127.0.0.1:%d/" % port,
         "--", out_dir, tag],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return process


def wrk_result(process):
    out, _ = process.communicate()
    line = [l for l in out.splitlines() if l.startswith("WRKFLEET ")]
    if not line:
        raise RuntimeError("wrk printed no result:\n" + out[-2000:])
    return json.loads(line[0][len("WRKFLEET "):])


def merged_percentile(results, share):
    """A percentile of the fleet's latencies from each wrk's percentiles (1..99, 99.9, max),
    weighted by its requests: each point stands for 1% of that wrk's requests."""
    points = []
    for r in results:
        weight = r["requests"] / 100.0
        for value in r["latency_us_by_percentile"][:99]:
            points.append((value, weight))
        points.append((r["latency_us_by_percentile"][99], weight))  # 99.9th for the last 1%
    points.sort()
    total = sum(w for _, w in points)
    seen = 0.0
    for value, weight in points:
        seen += weight
        if seen >= share * total:
            return value / 1000.0
    return points[-1][0] / 1000.0 if points else None


class PartSampler(threading.Thread):
    """Active parts of the fleet table (total, fullest partition) every 0.5 s."""

    def __init__(self, started):
        super().__init__(daemon=True)
        self.started = started
        self.samples = []
        self.stopping = threading.Event()

    def run(self):
        while not self.stopping.is_set():
            try:
                total, fullest, merges = ch_row(
                    "SELECT count(), max(c), (SELECT count() FROM system.merges"
                    " WHERE database = 'bench' AND table = '%s') FROM (SELECT count() OVER"
                    " (PARTITION BY partition_id) AS c FROM system.parts WHERE database = 'bench'"
                    " AND table = '%s' AND active)" % (FLEET_TABLE, FLEET_TABLE))
                self.samples.append([round(time.monotonic() - self.started, 2), int(total),
                                     int(fullest), int(merges)])
            except Exception:  # ClickHouse busy: skip one sample
                pass
            self.stopping.wait(0.5)


def newest_block():
    """The fleet table's newest block number: it grows by one for every part an INSERT (or an
    asynchronous insert's flush) writes, whatever merges do."""
    return int(ch("SELECT max(max_block_number) FROM system.parts WHERE database = 'bench'"
                  " AND table = '%s' AND active" % FLEET_TABLE).strip() or 0)


def server_events():
    row = ch_row("SELECT sumIf(value, event = 'DelayedInserts'), sumIf(value, event ="
                 " 'RejectedInserts') FROM system.events")
    return int(row[0]), int(row[1])


def insert_series(t0, t1):
    """INSERTs into the fleet table that ended in [t0, t1]: in all, failed by code, per second."""
    ch("SYSTEM FLUSH LOGS")
    where = ("query_kind = 'Insert' AND type != 'QueryStart' AND has(tables, 'bench.%s')"
             " AND event_time_microseconds BETWEEN toDateTime64('%s', 6) AND toDateTime64('%s', 6)"
             % (FLEET_TABLE, t0, t1))
    row = ch_row("SELECT countIf(type = 'QueryFinish'), sumIf(written_rows, type = 'QueryFinish'),"
                 " countIf(exception_code = 252), countIf(type != 'QueryFinish')"
                 " FROM system.query_log WHERE " + where)
    per_second = [int(x) for x in ch(
        "SELECT count() FROM system.query_log WHERE type = 'QueryFinish' AND " + where
        + " GROUP BY toStartOfSecond(event_time_microseconds) ORDER BY 1 DESC"
        " LIMIT 1000 FORMAT TSV").split()]
    return {"inserts": int(row[0]), "inserted_rows": int(row[1]), "too_many_parts": int(row[2]),
            "failed_inserts": int(row[3]), "inserts_per_second_busiest": per_second[:5]}


def stored_rows():
    """Every row of the fleet table: message id -> list of the rows stored for it."""
    rows = {}
    for line in ch("SELECT _pubsub_message_id, toString(event_time), service, level, message FROM"
                   " bench.%s FORMAT TSV" % FLEET_TABLE).splitlines():
        fields = line.split("\t")
        rows.setdefault(fields[0], []).append(fields[1:])
    return rows


def account(out_dir, tag, stored):
    """This run's acknowledged ids against the rows stored, by value: lost (acknowledged, not in
    the table), stored without an ack (answered after wrk stopped), altered and duplicate rows."""
    acked = set()
    for path in glob.glob(os.path.join(out_dir, "acked-%s-*.txt" % tag)):
        with open(path) as f:
            acked.update(line.strip() for line in f if line.strip())
    ours = {i: rows for i, rows in stored.items() if i.startswith(tag + "-")}
    return {"acked": len(acked), "stored": len(ours), "lost": len(acked - ours.keys()),
            "stored_not_acked": len(ours.keys() - acked),
            "altered_rows": sum(1 for rows in ours.values() for row in rows if row != SEED_ROW),
            "duplicate_rows": sum(len(rows) - 1 for rows in ours.values())}


def measure_fleet(args, chpid, size, mode, env_extra):
    """One fleet: `size` instances, started, warmed up, measured, stopped."""
    name = "%s-%d" % (mode, size)
    log("fleet: %d instance(s), %s" % (size, mode))
    ch("DROP TABLE IF EXISTS bench.%s" % FLEET_TABLE)
    ch("CREATE TABLE bench.%s %s ENGINE = MergeTree ORDER BY event_time" % (FLEET_TABLE,
                                                                             FLEET_COLUMNS))
    limits = ch("SELECT value FROM system.merge_tree_settings WHERE name IN"
                " ('parts_to_delay_insert', 'parts_to_throw_insert') ORDER BY name").split()
    share = CpuShare("bench-fleet-%d" % os.getpid(), args.fleet_cpus)
    out_dir = os.path.join(WORK, "fleet", name)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    servers = []
    try:
        for i in range(size):
            port = FLEET_PORT + i
            command = share.command(i, [IMAGE_JAVA] + SERVICE_JVM + [
                "-jar", FUNCTION_JAR])
            servers.append(Server(
                "fleet-%d" % i, command,
                service_env(table=FLEET_TABLE, port=port, extra=env_extra), port,
                os.path.join(out_dir, "service-%d.log" % i)).start())
        for i, server in enumerate(servers):
            wait_for_204(server.port, server.process, deadline_s=180)
        per_instance = max(1, args.fleet_concurrency // size)
        # Warm-up outside the quota, long enough for every JVM's JIT (they share the cores).
        warm = [fleet_wrk(s.port, per_instance, max(args.warmup, 2 * size), out_dir,
                          "warm%d" % i) for i, s in enumerate(servers)]
        for process in warm:
            wrk_result(process)
        for server in servers:
            share.place(server.process.pid)
        time.sleep(1)
        # No TRUNCATE: it would hide the table's block count; the warm-up's rows carry their own
        # tag and are not counted.
        events0 = server_events()
        block0 = newest_block()
        cpu0 = sum(cpu_seconds(s.process.pid) for s in servers)
        chcpu0 = cpu_seconds(chpid)
        started = time.monotonic()
        sampler = PartSampler(started)
        sampler.start()
        t0 = ch_now()
        tag = "m%d" % int(time.time())
        runs = [fleet_wrk(s.port, per_instance, args.fleet_duration, out_dir, "%s%d" % (tag, i))
                for i, s in enumerate(servers)]
        results = [wrk_result(p) for p in runs]
        seconds = time.monotonic() - started
        t1 = ch_now()
        cpu1 = sum(cpu_seconds(s.process.pid) for s in servers)
        chcpu1 = cpu_seconds(chpid)
        time.sleep(2)  # answers in flight land; merges go on
        sampler.stopping.set()
        sampler.join()
        events1 = server_events()
        block1 = newest_block()
        inserts = insert_series(t0, t1)
        stored = stored_rows()
        accounts = [account(out_dir, "%s%d" % (tag, i), stored) for i in range(size)]
        throttled = 0
        for server in servers:
            try:
                metrics = subprocess.run(
                    ["curl", "-s", "http://127.0.0.1:%d/metrics" % server.port],
                    capture_output=True, text=True, timeout=10).stdout
                for line in metrics.splitlines():
                    if line.startswith("pubsub_clickhouse_throttled_total "):
                        throttled += int(line.split()[1])
            except (subprocess.TimeoutExpired, ValueError):
                pass
    finally:
        for server in servers:
            server.stop()
        share.close()
    acks = sum(r["acks"] for r in results)
    parts = [s[1] for s in sampler.samples] or [0]
    fullest = [s[2] for s in sampler.samples] or [0]
    row = {
        "name": name, "mode": mode, "instances": size, "env": env_extra,
        "cpu_share": share.how, "concurrency": per_instance * size,
        "seconds": seconds, "requests": sum(r["requests"] for r in results),
        "acks": acks, "msgs_per_s": acks / seconds,
        "refusals_429": sum(r["refusals"] for r in results),
        "failures": sum(r["failures"] for r in results),
        "socket_errors": sum(r["socket_errors"] for r in results),
        "throttled_by_flow_control": throttled,
        "p50_ms": merged_percentile(results, 0.5), "p99_ms": merged_percentile(results, 0.99),
        "inserts": inserts["inserts"], "inserts_per_s": inserts["inserts"] / seconds,
        "parts_written": block1 - block0, "parts_written_per_s": (block1 - block0) / seconds,
        "inserts_per_second_busiest": inserts["inserts_per_second_busiest"],
        "rows_per_insert": inserts["inserted_rows"] / max(inserts["inserts"], 1),
        "failed_inserts": inserts["failed_inserts"], "too_many_parts": inserts["too_many_parts"],
        "delayed_inserts": events1[0] - events0[0], "rejected_inserts": events1[1] - events0[1],
        "active_parts_max": max(parts), "active_parts_mean": sum(parts) / len(parts),
        "partition_parts_max": max(fullest),
        "parts_to_delay_insert": int(limits[0]), "parts_to_throw_insert": int(limits[1]),
        "parts_series": sampler.samples,
        "service_cpu_s": cpu1 - cpu0, "clickhouse_cpu_s": chcpu1 - chcpu0,
        "lost": sum(a["lost"] for a in accounts),
        "stored_not_acked": sum(a["stored_not_acked"] for a in accounts),
        "altered_rows": sum(a["altered_rows"] for a in accounts),
        "duplicate_rows": sum(a["duplicate_rows"] for a in accounts),
        "acked_ids": sum(a["acked"] for a in accounts),
    }
    log("  %-10s %6.0f msg/s  %6.1f INSERTs/s (busiest s %s)  %.0f rows/INSERT  parts max %d"
        "  p50 %.1f p99 %.1f ms  429 %d  252 %d  lost %d"
        % (name, row["msgs_per_s"], row["inserts_per_s"], row["inserts_per_second_busiest"][:1],
           row["rows_per_insert"], row["active_parts_max"], row["p50_ms"] or 0,
           row["p99_ms"] or 0, row["refusals_429"], row["too_many_parts"], row["lost"]))
    return row


def run_fleet(args, chpid):
    budget = args.fleet_budget
    modes = [("flow", {"TABLE_MAX_INSERTS_PER_SECOND": str(budget)}),
             ("off", {"TABLE_WATCH_INTERVAL_MS": "0"})]
    rows = []
    for size in args.fleet_sizes:
        for mode, env in modes:
            rows.append(measure_fleet(args, chpid, size, mode, env))
    if args.async_insert_queue:
        # ClickHouse's own answer to many small INSERTs: async inserts from every instance.
        rows.append(measure_fleet(args, chpid, max(args.fleet_sizes), "async",
                                  {"ASYNC_INSERT": "true", "TABLE_WATCH_INTERVAL_MS": "0"}))
    return {"rows": rows, "budget": budget, "cpus": args.fleet_cpus,
            "concurrency": args.fleet_concurrency, "duration": args.fleet_duration,
            "jvm": SERVICE_JVM}
