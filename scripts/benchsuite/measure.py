"""Measuring: runs the parts side by side and writes what they measured to one results file.
Nothing here judges a number; the report (report.py, floors.py, costmodel.py, plots.py) does."""

import datetime
import json
import os
import sys
import time

from .backfill import run_backfill
from .build import build, build_patched
from .clickhouse import async_insert_queue, ch, start_clickhouse, stop_clickhouse
from .cdc import run_cdc
from .coldstart import run_cold_start
from .encoder import run_encoder
from .fleet import run_fleet
from .insertcost import run_insert_cost
from .machine import machine_info
from .pull import run_pull
from .push import parse_variant, run_push
from .settings import CH_DIR, CH_URL, IMAGE_JAVA, SERVICE_JVM, log

PARTS = ["encoder", "insertcost", "push", "cdc", "pull", "fleet", "coldstart", "backfill"]


def measure(args):
    """Runs the parts in args.parts; returns the results (also written to `json_path`)."""
    started = time.time()
    build(args)
    patched = build_patched(args.patch) if args.patch else None
    if patched and not any("jar=patched" in v for v in args.variant):
        args.variant.append("patched:jar=patched")
    args.variants = [parse_variant(v.replace("jar=patched", "jar=" + (patched or "")), i)
                     for i, v in enumerate(args.variant)]
    names = [v["name"] for v in args.variants]
    if len(set(names)) < len(names):
        raise SystemExit("--variant: two variants share a name (%s)" % ", ".join(names))
    results = {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "machine": machine_info(),
        "service": {"command": "%s %s" % (IMAGE_JAVA, " ".join(SERVICE_JVM))},
        "args": {"quick": args.quick, "concurrency": args.concurrency, "rounds": args.rounds,
                 "duration": args.duration, "warmup": args.warmup, "parts": sorted(args.parts),
                 "fleet_sizes": args.fleet_sizes, "fleet_concurrency": args.fleet_concurrency,
                 "fleet_duration": args.fleet_duration, "fleet_budget": args.fleet_budget,
                 "fleet_cpus": args.fleet_cpus, "pull_rate": args.pull_rate},
        "load_avg_before": os.getloadavg(),
        "argv": sys.argv[1:],
    }
    log("starting ClickHouse on %s (data in %s)" % (CH_URL, CH_DIR))
    chpid = start_clickhouse()
    results["machine"]["clickhouse"] = ch("SELECT version()").strip()
    args.async_insert_queue = async_insert_queue()
    results["machine"]["async_insert_queue"] = args.async_insert_queue
    if not args.async_insert_queue:
        log("this ClickHouse runs async_insert=1 INSERTs synchronously (no async insert queue)")
    try:
        for part, key, function in [("encoder", "encoder", run_encoder),
                                    ("insertcost", "insert_cost", run_insert_cost),
                                    ("push", "push", lambda a: run_push(a, chpid)),
                                    ("cdc", "cdc", lambda a: run_cdc(a, chpid)),
                                    ("pull", "pull", run_pull),
                                    ("fleet", "fleet", lambda a: run_fleet(a, chpid)),
                                    ("coldstart", "cold_start", run_cold_start),
                                    ("backfill", "backfill", run_backfill)]:
            if part not in args.parts:
                continue
            try:
                results[key] = function(args)
            except Exception as e:  # keep what the other parts measured
                if part in ("push", "encoder"):
                    raise
                log("%s failed: %s" % (part, e))
                results.setdefault("errors", {})[part] = str(e)
    finally:
        if not args.keep_clickhouse:
            stop_clickhouse()
    results["load_avg_after"] = os.getloadavg()
    results["suite_seconds"] = time.time() - started
    return results


def write_results(results, directory):
    stamp = results["date"][:10]
    path = os.path.join(directory, "results-%s.json" % stamp)
    json.dump(results, open(path, "w"), indent=1, sort_keys=False)
    return path
