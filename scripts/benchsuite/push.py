"""Part push: every target at every concurrency, side by side, and the ClickHouse ceiling."""

import json
import os
import statistics
import subprocess
import threading
import time

from .breakdown import breakdown, phase_sums
from .clickhouse import active_parts, ch, ch_now, insert_stats, settle, truncate
from .processes import (CPU_LAYOUT, Server, children_cpu_seconds, context_switches,
                        cpu_seconds, machine_busy_seconds, memory_kib,
                        one_cpu_service_layout, pin_process, pinned, post_once, server_command,
                        service_env, target_env, wait_for_204, wrk)
from .settings import (BENCHMARKS_JAR, CH_PORT, CH_URL, FUNCTION_JAR, IMAGE_JAVA, JDK25,
                       PEER_JVM, PORTS, REPO, SEED_TABLE_COLUMNS, SERVICE_JVM, TABLES,
                       VARIANT_PORT, WORK, log)


class DirectInserts:
    """The direct peer: no process of its own. wrk posts the same rows straight to ClickHouse, one
    INSERT per message (scripts/bench-direct.lua); its service CPU is none."""
    port = CH_PORT
    process = None
    script = "bench-direct.lua"

    def stop(self):
        pass


# The paced point: ours and the bare handler at this many connections, both offered the same
# --paced-rate. At each one's own saturation the bare handler's CPU per message falls as its
# throughput rises (fewer wake-ups per message), so CPU per message is compared here instead.
PACED_CONCURRENCY = 256


def measure_push(name, server, chpid, connections, args, rate=None):
    """One warm-up and one measured wrk run of `name` at `connections`; with `rate`, both offer
    that many requests a second in all (see wrk)."""
    return measure_side_by_side([(name, server)], chpid, connections, args, rate)[0]


# At this concurrency the targets are measured in alternating slices of SLICE_SECONDS rather than
# one after the other. A one-row INSERT's time in ClickHouse moves by up to 2 times between points
# a minute apart (its merges, its logs), and at c=1 that time is nearly all of a request's, so
# points measured in turn compared ClickHouse's moods more than the targets. Example, duration 8 s
# and the targets bare, ours, direct, async, naive: 8 slices of 1 s each, in the orders of
# slice_orders, every target's figures summed over its 8 slices.
SLICED_CONCURRENCY = 1
SLICE_SECONDS = 1
# After each slice, before the next target's counters start: the one request wrk leaves in flight
# when a slice ends finishes its INSERT in this gap, not in the next target's slice.
SLICE_GAP_SECONDS = 0.05


def slice_orders(n):
    """Orders of n targets (as indices) for consecutive slices, in which, over the whole set, each
    target follows each other equally often (a Williams design: n orders for an even n, 2n for an
    odd one), so that what one target leaves behind (merges of its parts, a late INSERT) falls on
    the others alike. The first order takes from both ends in turn, the others shift it.
    Example, n = 4: 0 1 3 2, 1 2 0 3, 2 3 1 0, 3 0 2 1."""
    base, low, high = [0], 1, n - 1
    for position in range(1, n):
        if position % 2:
            base.append(low)
            low += 1
        else:
            base.append(high)
            high -= 1
    orders = [[(i + shift) % n for i in base] for shift in range(n)]
    return orders if n % 2 == 0 else orders + [order[::-1] for order in orders]


def measure_side_by_side(targets, chpid, connections, args, rate=None, slices=1):
    """Rows of the (name, server) `targets` at `connections`: each warmed up, every table emptied,
    ClickHouse left to settle, then `slices` rounds in which each target runs args.duration /
    slices seconds in turn, in the orders of slice_orders. A target's row sums its slices (see
    combine_wrk)."""
    if args.duration % slices:
        raise ValueError("%d s do not cut into %d whole slices" % (args.duration, slices))
    for name, server in targets:
        wrk(server.port, connections, args.warmup, *wrk_script(server), rate)
    for name, _ in targets:
        if TABLES[name]:
            truncate(TABLES[name])
    # Each point starts from a quiet ClickHouse: its query log's flushes and merges after the
    # warm-up (and the previous point) are not measured as this target's.
    settle_s, settled = settle(lambda: cpu_seconds(chpid))
    if not settled:
        log("  ClickHouse still busy after %.0f s; measuring %s c=%d anyway"
            % (settle_s, ", ".join(name for name, _ in targets), connections))
    # CPU of the whole service process, every thread (/proc/PID/stat); none for the direct peer
    pids = {name: server.process.pid if server.process else None for name, server in targets}
    phases0 = {name: phase_sums(server.port) if pids[name] else None for name, server in targets}
    load0 = os.getloadavg()[0]
    counters = {name: dict.fromkeys(["cpu", "chcpu", "cs", "busy", "wrk"], 0.0)
                for name, _ in targets}
    results = {name: [] for name, _ in targets}
    seconds = args.duration // slices
    orders = slice_orders(len(targets))
    t0 = ch_now()
    for k in range(slices):
        for index in orders[k % len(orders)]:
            name, server = targets[index]
            before = snapshot(pids[name], chpid)
            results[name].append(wrk(server.port, connections, seconds, *wrk_script(server), rate))
            after = snapshot(pids[name], chpid)
            for key in counters[name]:
                counters[name][key] += after[key] - before[key]
            if slices > 1:
                time.sleep(SLICE_GAP_SECONDS)
    t1 = ch_now()
    phases1 = {name: phase_sums(server.port) if phases0[name] else None
               for name, server in targets}
    rows = []
    for name, server in targets:
        rows.append(point_row(name, server, connections, combine_wrk(results[name]),
                              counters[name], pids[name], rate, load0, settle_s, settled))
    if any(TABLES[name] for name, _ in targets):
        time.sleep(1.2)  # query_log flush interval is 500 ms; let the last INSERTs land
    for row, (name, server) in zip(rows, targets):
        table = TABLES[name]
        if table:
            stats = insert_stats(table, t0, t1)
            row.update(stats)
            row["active_parts"] = active_parts(table)
            row["rows_per_insert"] = stats["inserted_rows"] / max(stats["inserts"], 1)
            row["rows_in_table"] = int(ch("SELECT count() FROM bench.%s" % table).strip())
            split = breakdown(phases0[name], phases1[name], stats["insert_ms_mean"],
                              row["mean_ms"])
            if split:
                row["breakdown_ms"] = split
            truncate(table)  # no merges of this run under the next one
        if slices > 1:
            row["slices"] = slices
        log_row(row, table)
    return rows


def wrk_script(server):
    return getattr(server, "script", "bench-push.lua"), getattr(server, "script_args", ())


def snapshot(pid, chpid):
    """The counters a point reads before and after each of its wrk runs."""
    return {"cpu": cpu_seconds(pid) if pid else 0, "chcpu": cpu_seconds(chpid),
            "cs": context_switches(pid) if pid else 0, "busy": machine_busy_seconds(),
            "wrk": children_cpu_seconds()}


def combine_wrk(results):
    """One wrk result from the results of a target's slices: counts and durations summed, the mean
    weighted by requests, p50, p90 and p99 the request-weighted means of the slices' (wrk keeps no
    histogram to merge), max the largest. One slice is returned as it is."""
    if len(results) == 1:
        return results[0]
    total = sum(r["requests"] for r in results)
    out = {key: sum(r[key] for r in results)
           for key in ["requests", "duration_us", "non_2xx", "errors_connect", "errors_read",
                       "errors_write", "errors_timeout"]}
    for key in ["mean_us", "p50_us", "p90_us", "p99_us"]:
        out[key] = sum(r.get(key, 0) * r["requests"] for r in results) / max(total, 1)
    out["max_us"] = max(r["max_us"] for r in results)
    return out


def point_row(name, server, connections, result, counters, pid, rate, load0, settle_s, settled):
    seconds = result["duration_us"] / 1e6
    ok = result["requests"] - result["non_2xx"]
    rss, hwm = memory_kib(pid) if pid else (0, 0)
    cpu, chcpu, wrk_cpu = counters["cpu"], counters["chcpu"], counters["wrk"]
    row = {
        "target": name,
        "concurrency": connections,
        "requests": result["requests"],
        "non_2xx": result["non_2xx"],
        "socket_errors": result["errors_connect"] + result["errors_read"] + result["errors_write"]
        + result["errors_timeout"],
        "seconds": seconds,
        "msgs_per_s": ok / seconds,
        "mean_ms": result.get("mean_us", 0) / 1000,
        "p50_ms": result["p50_us"] / 1000,
        "p90_ms": result["p90_us"] / 1000,
        "p99_ms": result["p99_us"] / 1000,
        "max_ms": result["max_us"] / 1000,
        "service_cpu_s": cpu,
        "service_cpu_us_per_msg": cpu * 1e6 / max(ok, 1),
        "context_switches_per_msg": counters["cs"] / max(ok, 1),
        "clickhouse_cpu_s": chcpu,
        "clickhouse_cpu_us_per_msg": chcpu * 1e6 / max(ok, 1),
        "wrk_cpu_s": wrk_cpu,
        "wrk_cpu_us_per_msg": wrk_cpu * 1e6 / max(ok, 1),
        # CPU the rest of the machine used meanwhile (other engineers' work): the noise indicator
        "others_cpu_cores": max(0.0, counters["busy"] - cpu - chcpu - wrk_cpu) / seconds,
        "rss_mib": rss / 1024,
        "peak_rss_mib": hwm / 1024,
        "load_avg_1m_before": load0,
        "clickhouse_settle_s": settle_s,
        "clickhouse_settled": settled,
    }
    if rate:
        row["offered_msgs_per_s"] = rate
    return row


def log_row(row, table):
    rate = row.get("offered_msgs_per_s")
    log(
        "  %-7s c=%-3d%s %8.0f msg/s  p50 %7.2f ms  p99 %7.2f ms  non2xx %d  rss %.0f MiB"
        "  cpu us/msg svc %.0f ch %.0f wrk %.0f  others %.2f cores%s%s"
        % (row["target"], row["concurrency"], " offered %d/s" % rate if rate else "",
           row["msgs_per_s"], row["p50_ms"], row["p99_ms"], row["non_2xx"], row["rss_mib"],
           row["service_cpu_us_per_msg"], row["clickhouse_cpu_us_per_msg"],
           row["wrk_cpu_us_per_msg"], row["others_cpu_cores"],
           ("  inserts %d rows/insert %.1f parts %d insert %.1f ms (CH)" % (
               row["inserts"], row["rows_per_insert"], row["active_parts"],
               row["insert_ms_mean"] or 0)) if table else "",
           "  (%d slices)" % row["slices"] if row.get("slices") else "")
    )


def measure_burst(name, server, size, repeats):
    """`size` pushes at once into an idle target, `repeats` times: INSERTs per burst, answers."""
    table = TABLES[name]
    runs = []
    for repeat in range(repeats):
        time.sleep(0.5)  # idle: the INSERTs of one burst end before the next starts
        t0 = ch_now()
        barrier = threading.Barrier(size)
        answers = []

        def push(k):
            barrier.wait()
            start = time.monotonic()
            try:
                status = post_once(server.port, "burst-%d-%d-%d" % (os.getpid(), repeat, k), 30)
            except OSError:
                status = -1
            answers.append(((time.monotonic() - start) * 1000, status))

        threads = [threading.Thread(target=push, args=(k,)) for k in range(size)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        time.sleep(1.2)  # query_log flush interval is 500 ms
        stats = insert_stats(table, t0, ch_now())
        millis = sorted(a[0] for a in answers)
        runs.append({"inserts": stats["inserts"], "rows": stats["inserted_rows"],
                     "median_ms": statistics.median(millis), "slowest_ms": millis[-1],
                     "acked": sum(1 for a in answers if a[1] == 204)})
    log("  burst %-7s %d x %d: INSERTs %s, slowest %s ms" % (
        name, repeats, size, "/".join(str(r["inserts"]) for r in runs),
        "/".join("%.0f" % r["slowest_ms"] for r in runs)))
    return {"target": name, "size": size, "runs": runs}


def run_ceiling(row_counts):
    out = subprocess.run(
        ["java", "-cp", BENCHMARKS_JAR,
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
    if name in PORTS or name in ("ceiling", "direct") or not name:
        raise SystemExit("--variant %s: %r names a target the suite measures already; name the"
                         " variant otherwise" % (text, name))
    variant = {"name": name, "env": {}, "jvm": list(SERVICE_JVM), "java": IMAGE_JAVA,
               "jar": FUNCTION_JAR, "port": VARIANT_PORT + index,
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


# The figures of a point that are the median of its rounds; the rest come from the round whose
# throughput is the median.
MEDIAN_FIELDS = ["msgs_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "service_cpu_us_per_msg",
                 "clickhouse_cpu_us_per_msg", "wrk_cpu_us_per_msg", "context_switches_per_msg",
                 "others_cpu_cores", "rows_per_insert", "insert_ms_mean"]
SPREAD_FIELDS = ["msgs_per_s", "p50_ms", "service_cpu_us_per_msg"]


def median_rows(samples):
    """One row per target and concurrency, in the order the samples first name them: each of
    MEDIAN_FIELDS the median of the rounds (the lower middle with an even number), the spread
    (lowest, highest) of SPREAD_FIELDS, and the most non-2xx answers of any round, so that a
    round that failed still shows."""
    groups = {}
    for row in samples:
        groups.setdefault((row["target"], row["concurrency"]), []).append(row)
    rows = []
    for group in groups.values():
        row = dict(sorted(group, key=lambda r: r["msgs_per_s"])[(len(group) - 1) // 2])
        for field in MEDIAN_FIELDS:
            values = [r[field] for r in group if r.get(field) is not None]
            if len(values) == len(group):
                row[field] = statistics.median_low(values)
        row["rounds"] = len(group)
        row["spread"] = {field: [min(r[field] for r in group), max(r[field] for r in group)]
                         for field in SPREAD_FIELDS if all(field in r for r in group)}
        row["non_2xx"] = max(r["non_2xx"] for r in group)
        row.pop("round", None)
        rows.append(row)
    return rows


def run_push(args, chpid):
    layout = None if args.shared_cpus else one_cpu_service_layout()
    if layout:
        CPU_LAYOUT.update(layout)
        pin_process(chpid, CPU_LAYOUT["load"])
        log("one CPU per service: targets on CPU %s, wrk and ClickHouse on CPU %s"
            % (CPU_LAYOUT["service"], CPU_LAYOUT["load"]))
    else:
        log("every target, wrk and ClickHouse share every CPU")
    try:
        return measure_every_target(args, chpid)
    finally:
        if layout:
            pin_process(chpid, CPU_LAYOUT["service"] + "," + CPU_LAYOUT["load"], check=False)
            CPU_LAYOUT.update({"service": None, "load": None})


def measure_every_target(args, chpid):
    log("push end to end: starting ours (%s %s), bare, naive, async (peers: %s)"
        % (IMAGE_JAVA, " ".join(SERVICE_JVM), " ".join(PEER_JVM)))
    servers = {}
    for name in ["bare", "ours", "async", "naive"]:
        servers[name] = Server(
            name, server_command(name), target_env(name), PORTS[name],
            os.path.join(WORK, "%s.log" % name),
        ).start()
    for v in args.variants:
        ch("DROP TABLE IF EXISTS bench.%s" % v["table"])
        ch("CREATE TABLE bench.%s %s ENGINE = %s" % (v["table"], SEED_TABLE_COLUMNS, v["engine"]))
        TABLES[v["name"]] = v["table"]
        command = pinned([v["java"]] + v["jvm"] + ["-jar", v["jar"]], "service")
        servers[v["name"]] = Server(
            v["name"], command,
            service_env(table=v["table"], port=v["port"], extra=v["env"]), v["port"],
            os.path.join(WORK, "%s.log" % v["name"]),
        ).start()
    servers["direct"] = DirectInserts()
    order = ["bare", "ours", "direct", "async"] + [v["name"] for v in args.variants] + ["naive"]
    try:
        for name, server in servers.items():
            if server.process:
                wait_for_204(server.port, server.process)
        # Every JVM's JIT warms up before the first point, so that the first level measured (c=1)
        # is not measured on cold code in round 1 and warm code in round 2.
        # At 64 connections a batch holds dozens of messages, so the code that runs once per
        # INSERT (the write path, the HTTP client) runs a few thousand times; 4 connections run it
        # once or twice per message. Measured (docs/performance.md): a JVM warmed at 64 only was
        # still compiling the per-INSERT path through every c=1 round, 30% below its own speed.
        log("warming every target up: %d s each at 64 connections, then %d s at 4"
            % (2 * args.warmup, 6 * args.warmup))
        for name in order:
            script = getattr(servers[name], "script", "bench-push.lua")
            wrk(servers[name].port, 64, 2 * args.warmup, script)
            wrk(servers[name].port, 4, 6 * args.warmup, script)
        rows = []
        middle = order[1:-1]
        samples = []
        paced_samples = []
        if args.paced_rate and PACED_CONCURRENCY not in args.concurrency:
            log("no paced point: --concurrency has no %d" % PACED_CONCURRENCY)
        for round_ in range(args.rounds):
            for level, connections in enumerate(args.concurrency):
                # bare first, naive last (it leaves the most parts); the rest rotates from level
                # to level and from round to round, so no target always runs after another
                shift = (level + round_) % len(middle)
                names = [order[0]] + middle[shift:] + middle[:shift] + [order[-1]]
                if connections == SLICED_CONCURRENCY:
                    point = measure_side_by_side(
                        [(name, servers[name]) for name in names], chpid, connections, args,
                        slices=max(1, args.duration // SLICE_SECONDS))
                else:
                    point = [measure_push(name, servers[name], chpid, connections, args)
                             for name in names]
                for row in point:
                    row["round"] = round_ + 1
                    samples.append(row)
            if args.paced_rate and PACED_CONCURRENCY in args.concurrency:
                for name in ("bare", "ours") if round_ % 2 == 0 else ("ours", "bare"):
                    row = measure_push(name, servers[name], chpid, PACED_CONCURRENCY, args,
                                       args.paced_rate)
                    row["round"] = round_ + 1
                    paced_samples.append(row)
        rows = median_rows(samples)
        bursts = [measure_burst(name, servers[name], 200, 3 if args.quick else 5)
                  for name in order if name not in ("bare", "naive", "direct")]
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
        return {"rows": rows, "samples": samples, "rounds": args.rounds, "bursts": bursts,
                "ceiling_inserts": ceiling, "jvm": SERVICE_JVM, "peer_jvm": PEER_JVM,
                "order": order,
                "variants": args.variants, "cpu_layout": dict(CPU_LAYOUT),
                **({"paced": {"rate": args.paced_rate, "samples": paced_samples,
                              "rows": median_rows(paced_samples)}} if paced_samples else {})}
    finally:
        for server in servers.values():
            server.stop()
