"""The report of a results file: text, markdown tables, CSV. It reads what the measuring wrote and
computes the rest (cost model, floors) itself, so that an earlier run can be reported again."""

import contextlib
import io

from . import breakdown
from .costmodel import PRICES, cost_model
from .floors import floors, variant_floors

PEERS = ["direct", "naive", "async"]


def derived(results):
    """What the report adds to the measurements: the cost model and the floors."""
    out = {}
    if "push" in results:
        out["cost"] = cost_model(results["push"])
    out["floors"] = floors(results)
    out["variant_floors"] = variant_floors(results)
    return out


def _ratio(a, b):
    return a["msgs_per_s"] / max(b["msgs_per_s"], 1e-9) if a and b else None


def _per_task(run):
    """A backfill run's rows/s per task: the mean of each task's own (its summary line)."""
    rates = [r for r in run.get("per_task_rows_per_s") or [] if r]
    return sum(rates) / len(rates) if rates else float("nan")


def _short(value):
    return "%.0f" % value if abs(value) >= 100 else "%.2f" % value


def print_push(results, push):
    print("\nPush end to end (seed row, wrapped envelopes; %s s measured after %s s warm-up)"
          % (results["args"]["duration"], results["args"]["warmup"]))
    layout = push.get("cpu_layout") or {}
    if layout.get("service"):
        print("Each target on CPU %s alone (one CPU, as the deployed service's 1 vCPU); wrk and"
              " ClickHouse on CPU %s" % (layout["service"], layout["load"]))
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
    print("(svc us / CH us: CPU microseconds per message of the service process, all its"
          " threads, and of ClickHouse; others: cores other processes used meanwhile; RSS: at the"
          " end of the point; direct: one INSERT per message straight to ClickHouse, no handler)")
    spread = [r for r in push["rows"] if r.get("spread")]
    if spread:
        print("\nEach figure is the median of %d interleaved rounds; the spread (lowest-highest):"
              % max(r["rounds"] for r in spread))
        for r in spread:
            print("  %-8s c=%-4d %s" % (r["target"], r["concurrency"], "  ".join(
                "%s %s-%s" % (field, _short(low), _short(high))
                for field, (low, high) in r["spread"].items())))
    print_paced(push.get("paced"))
    for v in push.get("variants", []):
        print("variant %s: %s%s%s" % (v["name"], " ".join("%s=%s" % kv for kv in v["env"].items()),
                                      " jvm=" + " ".join(v["jvm"]), " java=" + v["java"]))
    print("\nRatios (same run):")
    by = {(r["target"], r["concurrency"]): r for r in push["rows"]}
    print("%5s %10s %12s %11s %11s %13s %14s" % ("conc", "ours/bare", "ours/direct",
                                                 "ours/naive", "ours/async", "ours/ceiling",
                                                 "p99 ours-bare"))
    for c in results["args"]["concurrency"]:
        o, b, d, n, a, k = (by.get((t, c))
                            for t in ["ours", "bare", "direct", "naive", "async", "ceiling"])
        if not o:
            continue
        extra = "".join("  %s %.1f%%/%.1fms" % (v["name"], 100 * _ratio(by[(v["name"], c)], b),
                                                by[(v["name"], c)]["p99_ms"])
                        for v in push.get("variants", []) if (v["name"], c) in by and b)
        nan = float("nan")
        print("%5d %9.1f%% %11.2fx %10.2fx %10.2fx %12.2f%% %11.1f ms%s" % (
            c, 100 * (_ratio(o, b) or nan), _ratio(o, d) or nan, _ratio(o, n) or nan,
            _ratio(o, a) or nan,
            100 * (_ratio(o, k) or nan), o["p99_ms"] - b["p99_ms"] if b else nan, extra))
    for c in push["ceiling_inserts"]:
        print("ClickHouse ceiling: %9d rows as one %-21s INSERT: %.3f s = %.0f rows/s"
              % (c["rows"], c["format"], c["best_s"], c["rows_per_s"]))
    for burst in push.get("bursts", []):
        print("Burst of %d simultaneous pushes into idle %s, %d times: INSERTs per burst %s,"
              " slowest answer %s ms" % (
                  burst["size"], burst["target"], len(burst["runs"]),
                  "/".join(str(r["inserts"]) for r in burst["runs"]),
                  "/".join("%.0f" % r["slowest_ms"] for r in burst["runs"])))


def print_paced(paced):
    """The paced point: ours and the bare handler offered the same rate."""
    if not paced:
        return
    print("\nPaced: ours and the bare handler each offered %d msg/s at c=%d (medians of %d rounds;"
          " msg/s: answered 2xx; svc us: CPU microseconds per message of the service process,"
          " lowest-highest)"
          % (paced["rate"], paced["rows"][0]["concurrency"], paced["rows"][0]["rounds"]))
    for r in paced["rows"]:
        low, high = r["spread"]["service_cpu_us_per_msg"]
        print("  %-6s %8.0f msg/s  p50 %7.2f ms  p99 %7.2f ms  non2xx %d  svc us %5.1f (%.1f-%.1f)%s"
              % (r["target"], r["msgs_per_s"], r["p50_ms"], r["p99_ms"], r["non_2xx"],
                 r["service_cpu_us_per_msg"], low, high,
                 "  rows/INSERT %.1f" % r["rows_per_insert"] if "rows_per_insert" in r else ""))


def print_pull(pull):
    print("\nPull (through the Pub/Sub emulator) beside push at %d msg/s offered, publish to row:"
          % pull["rate"])
    print("  %-5s %10s %8s %8s %14s %12s" % ("mode", "msg/s", "p50 ms", "p99 ms", "CPU us/msg",
                                              "stored"))
    for r in pull["rows"]:
        print("  %-5s %10.0f %8.1f %8.1f %14.0f %12s" % (
            r["target"], r["msgs_per_s"], r["p50_ms"], r["p99_ms"], r["service_cpu_us_per_msg"],
            "%d/%d" % (r["stored"], r["published"])))


def print_fleet(fleet):
    print("\nFleet: %d requests in flight over the fleet, %d s each, service CPU %.1f cores"
          " (%s); table budget %d INSERTs/s" % (
              fleet["concurrency"], fleet["duration"], fleet["cpus"],
              fleet["rows"][0]["cpu_share"] if fleet["rows"] else "-", fleet["budget"]))
    header = ("%-9s %4s %8s %8s %8s %9s %8s %9s %7s %7s %6s %6s %5s %5s %5s" % (
        "mode", "inst", "msg/s", "p50 ms", "p99 ms", "INSERT/s", "parts/s", "rows/ins", "parts",
        "delayed", "429", "5xx", "252", "lost", "dups"))
    print(header)
    print("-" * len(header))
    for r in fleet["rows"]:
        print("%-9s %4d %8.0f %8.1f %8.1f %9.1f %8.1f %9.1f %7d %7d %6d %6d %5d %5d %5d" % (
            r["mode"], r["instances"], r["msgs_per_s"], r["p50_ms"] or 0, r["p99_ms"] or 0,
            r["inserts_per_s"], r.get("parts_written_per_s", 0), r["rows_per_insert"],
            r["partition_parts_max"],
            r["delayed_inserts"], r["refusals_429"], r["failures"], r["too_many_parts"],
            r["lost"], r["duplicate_rows"]))
    print("(INSERT/s: INSERT queries; parts/s: parts written, by the table's block numbers (with"
          " async inserts, ClickHouse's flushes); parts: most active parts in a partition, sampled"
          " every 0.5 s; delayed: the server's DelayedInserts; lost: acknowledged ids not in the"
          " table; dups: rows stored twice)")


def print_others(results, cost):
    insert_cost = results.get("insert_cost")
    if insert_cost:
        print("\nClickHouse CPU per 50-row INSERT (query_log), same run: tmpfs %.2f + %.2f ms,"
              " this machine's disk %.2f + %.2f ms (user + system)" % (
                  insert_cost["tmpfs"]["user_cpu_ms"], insert_cost["tmpfs"]["system_cpu_ms"],
                  insert_cost["disk"]["user_cpu_ms"], insert_cost["disk"]["system_cpu_ms"]))
    enc = results.get("encoder")
    if enc:
        print("\nEncoder (JMH, one thread): seed row %.0f rows/s, 20-column row %.0f rows/s"
              % (enc["seed_rows_per_s"], enc["mixed20_rows_per_s"]))
        compared = enc.get("cpu_compare")
        if compared:
            print("Encoder CPU per row beside %s (%d rounds in turns; medians, and the median of"
                  " the rounds' ratios): seed row %.1f / %.1f ns, %.3fx; 20-column row %.1f /"
                  " %.1f ns, %.3fx" % (
                      compared["baseline"], len(compared["samples"]["ours"]),
                      compared["seed_ns"]["ours"], compared["seed_ns"]["baseline"],
                      compared["seed_ns"]["ratio"], compared["mixed20_ns"]["ours"],
                      compared["mixed20_ns"]["baseline"], compared["mixed20_ns"]["ratio"]))
    cold = results.get("cold_start")
    if cold:
        print("\nCold start, process start to first 204 (median):")
        for key, v in cold["variants"].items():
            print("  %-60s %.2f s" % (key, v["median_s"]))
        check = cold.get("aot_cache_check")
        if check:
            print("  AOT cache check (scripts/aot-cache): %s: %s" % (
                "fresh" if check["passed"] else "STALE", check["why"].split("\n")[0]))
    back = results.get("backfill")
    if back:
        print("\nBackfill (%d seed rows, %d-row pages), rows/s of all tasks and per task (mean of"
              " each task's own):" % (back["total_rows"], back["page_rows"]))
        print("  %5s %12s %12s %14s %14s" % ("tasks", "REST", "per task", "Storage API",
                                             "per task"))
        storage = back.get("storage", {}).get("tasks", {})
        for tasks, rest in back["tasks"].items():
            cells = [rest["rows_per_s"], _per_task(rest)]
            if tasks in storage:
                cells += [storage[tasks]["rows_per_s"], _per_task(storage[tasks])]
            print("  %5s %12.0f %12.0f" % (tasks, cells[0], cells[1])
                  + ("%15.0f %14.0f" % (cells[2], cells[3]) if len(cells) > 2 else ""))
        if storage:
            print("  (Storage Read API tasks share a read session pinned in a checkpoint table, so"
                  " they write checkpoints; REST's run without)")
        if back.get("storage", {}).get("error"):
            print("  Storage Read API failed: %s" % back["storage"]["error"])
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
        if cost.get("by_concurrency"):
            print("  Per million messages at the rate ours sustained, from the CPU per message"
                  " measured there (Cloud Run request-based; Dataflow at the same rate):")
            print("  %5s %9s %12s %10s %14s %9s %14s" % (
                "conc", "msg/s", "CPU us/msg", "instances", "Cloud Run $/M", "workers",
                "Dataflow $/M"))
            for c, v in cost["by_concurrency"].items():
                print("  %5s %9.0f %12.1f %10.2f %14.4f %9d %14.4f" % (
                    c, v["msgs_per_s"], v["service_cpu_us_per_msg"], v["cloud_run_instances"],
                    v["cloud_run_usd_per_million"], v["dataflow_workers"],
                    v["dataflow_usd_per_million"]))


def print_cdc(cdc):
    print("\nCDC: Debezium change events (%d bytes, schema wrapper) beside the same rows as JSON"
          " (%d bytes), median of %d rounds:" % (cdc["event_bytes"]["debezium"],
                                                 cdc["event_bytes"]["json"], cdc["rounds"]))
    print("  %-9s %4s %10s %8s %8s %14s %8s" % ("payload", "c", "msg/s", "p50 ms", "p99 ms",
                                                "CPU us/msg", "non2xx"))
    for r in cdc["rows"]:
        print("  %-9s %4d %10.0f %8.1f %8.1f %14.0f %8d" % (
            r["target"], r["concurrency"], r["msgs_per_s"], r["p50_ms"], r["p99_ms"],
            r["service_cpu_us_per_msg"], r["non_2xx"]))


def render_report(results):
    extra = derived(results)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        print("scripts/bench %s, %s; %s; ClickHouse %s" % (
            " ".join(results.get("argv", [])), results["date"], results["machine"]["cpu"],
            results["machine"].get("clickhouse")))
        if results["machine"].get("async_insert_queue") is False:
            print("\nThis ClickHouse has no async insert queue (chDB's clickhouse-local engine): it"
                  " runs async_insert=1 INSERTs synchronously, one part each, so the async-insert"
                  " peer (async) here is the naive handler with a synchronous INSERT per message;"
                  " it has no floor.")
        if results.get("push"):
            print_push(results, results["push"])
            breakdown.print_breakdown(results["push"])
        if results.get("cdc"):
            print_cdc(results["cdc"])
        if results.get("pull"):
            print_pull(results["pull"])
        if results.get("fleet"):
            print_fleet(results["fleet"])
        print_others(results, extra.get("cost"))
        shipped = results.get("service", {}).get("command") or " ".join(
            results.get("push", {}).get("jvm", []))
        peers = results.get("push", {}).get("peer_jvm")
        print("\nFloors (ours as shipped: %s%s):"
              % (shipped, "; the peers with " + " ".join(peers) if peers else ""))
        for f in extra["floors"]:
            print("  %-4s %-52s %s" % ("PASS" if f["pass"] else "FAIL", f["floor"], f["text"]))
        for name, checks in extra["variant_floors"].items():
            print("  variant %s: %s" % (name, "; ".join(
                "%s %s" % ("PASS" if f["pass"] else "FAIL", f["floor"].replace("push ", ""))
                for f in checks)))
        print("\nLoad average before %.2f, after %.2f (2 cores: above ~1 means others were busy)"
              % (results["load_avg_before"][0], results["load_avg_after"][0]))
    return buffer.getvalue()


def render_markdown(results):
    """The tables of docs/performance.md, from one results file."""
    extra = derived(results)
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
                   + " | ours / direct | ours / naive | ours / async | ours / ceiling"
                   + " | p99 ours − bare |")
        out.append("|---:|" + "---:|" * (len(names) + 5))
        for c in results["args"]["concurrency"]:
            b, o = by.get(("bare", c)), by.get(("ours", c))
            if not (b and o):
                continue
            cells = ["%.1f%%" % (100 * _ratio(by[(x, c)], b)) if (x, c) in by else "–"
                     for x in names]
            peers = ["%.2f×" % _ratio(o, by[(p, c)]) if (p, c) in by else "–" for p in PEERS]
            k = by.get(("ceiling", c))
            out.append("| %d | %s | %s | %s | %+.1f ms |" % (
                c, " | ".join(cells), " | ".join(peers),
                ("%.2f%%" % (100 * _ratio(o, k))) if k else "–", o["p99_ms"] - b["p99_ms"]))
        out.append("")
        paced = push.get("paced")
        if paced:
            out.append("| paced: offered msg/s | target | conc. | msg/s | p50 ms | p99 ms"
                       " | non-2xx | service CPU µs/msg (lowest–highest) |")
            out.append("|---:|---|---:|---:|---:|---:|---:|---|")
            for r in paced["rows"]:
                out.append("| %s | %s | %d | %s | %.2f | %.2f | %d | %.1f (%.1f–%.1f) |" % (
                    "{:,}".format(paced["rate"]), r["target"], r["concurrency"],
                    "{:,.0f}".format(r["msgs_per_s"]), r["p50_ms"], r["p99_ms"], r["non_2xx"],
                    r["service_cpu_us_per_msg"], *r["spread"]["service_cpu_us_per_msg"]))
            out.append("")
        out += breakdown.markdown(push)
        if push.get("bursts"):
            out.append("| burst | target | INSERTs per burst | slowest answer ms |")
            out.append("|---:|---|---|---|")
            for burst in push["bursts"]:
                out.append("| %d | %s | %s | %s |" % (
                    burst["size"], burst["target"],
                    ", ".join(str(r["inserts"]) for r in burst["runs"]),
                    ", ".join("%.0f" % r["slowest_ms"] for r in burst["runs"])))
            out.append("")
    cdc = results.get("cdc")
    if cdc:
        out.append("| payload (%d / %d bytes) | c | msg/s | p50 ms | p99 ms | service CPU µs/msg"
                   " | non-2xx |" % (cdc["event_bytes"]["debezium"], cdc["event_bytes"]["json"]))
        out.append("|---|---:|---:|---:|---:|---:|---:|")
        for r in cdc["rows"]:
            out.append("| %s | %d | %.0f | %.1f | %.1f | %.0f | %d |" % (
                r["target"], r["concurrency"], r["msgs_per_s"], r["p50_ms"], r["p99_ms"],
                r["service_cpu_us_per_msg"], r["non_2xx"]))
        out.append("")
    pull = results.get("pull")
    if pull:
        out.append("| mode | offered msg/s | msg/s | p50 ms (publish to row) | p99 ms"
                   " | service CPU µs/msg | stored |")
        out.append("|---|---:|---:|---:|---:|---:|---:|")
        for r in pull["rows"]:
            out.append("| %s | %d | %.0f | %.1f | %.1f | %.0f | %d/%d |" % (
                r["target"], r["offered_per_s"], r["msgs_per_s"], r["p50_ms"], r["p99_ms"],
                r["service_cpu_us_per_msg"], r["stored"], r["published"]))
        out.append("")
    fleet = results.get("fleet")
    if fleet:
        out.append("| mode | instances | msg/s | p50 ms | p99 ms | INSERTs/s | busiest second"
                   " | parts written/s | rows/INSERT | most parts in a partition | delayed INSERTs"
                   " | 429 | 5xx | 252 | lost | service CPU s | ClickHouse CPU s |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
                   "---:|---:|")
        for r in fleet["rows"]:
            out.append("| %s | %d | %s | %.1f | %.1f | %.1f | %s | %.1f | %.1f | %d | %d | %d | %d"
                       " | %d | %d | %.1f | %.1f |" % (
                           r["mode"], r["instances"], "{:,.0f}".format(r["msgs_per_s"]),
                           r["p50_ms"] or 0, r["p99_ms"] or 0, r["inserts_per_s"],
                           (r["inserts_per_second_busiest"] or ["–"])[0],
                           r.get("parts_written_per_s", 0), r["rows_per_insert"],
                           r["partition_parts_max"], r["delayed_inserts"], r["refusals_429"],
                           r["failures"], r["too_many_parts"], r["lost"], r["service_cpu_s"],
                           r["clickhouse_cpu_s"]))
        out.append("")
    back = results.get("backfill")
    if back:
        storage = back.get("storage", {}).get("tasks", {})
        out.append("| tasks | REST rows/s | REST rows/s per task | Storage Read API rows/s"
                   " | Storage Read API rows/s per task |")
        out.append("|---:|---:|---|---:|---|")
        for tasks, rest in back["tasks"].items():
            cells = []
            for run in (rest, storage.get(tasks)):
                cells += (["{:,.0f}".format(run["rows_per_s"]),
                           ", ".join("{:,.0f}".format(r) for r in run["per_task_rows_per_s"])]
                          if run else ["–", "–"])
            out.append("| %s | %s |" % (tasks, " | ".join(cells)))
        out.append("")
    cost = extra.get("cost") or {}
    if cost.get("by_concurrency"):
        out.append("| conc. | msg/s | service CPU µs/msg | Cloud Run instances | Cloud Run $ per"
                   " million | Dataflow workers | Dataflow $ per million |")
        out.append("|---:|---:|---:|---:|---:|---:|---:|")
        for c, v in cost["by_concurrency"].items():
            out.append("| %s | %s | %.1f | %.2f | $%.4f | %d | $%.4f |" % (
                c, "{:,.0f}".format(v["msgs_per_s"]), v["service_cpu_us_per_msg"],
                v["cloud_run_instances"], v["cloud_run_usd_per_million"], v["dataflow_workers"],
                v["dataflow_usd_per_million"]))
        out.append("")
        out.append("Prices as of %s." % PRICES["as_of"])
        out.append("")
    out.append("| floor | target | result | measured |")
    out.append("|---|---|---|---|")
    for f in extra["floors"]:
        out.append("| %s | %s | **%s** | %s |" % (f["floor"], f["target"],
                                                  "PASS" if f["pass"] else "FAIL", f["text"]))
    variants = extra["variant_floors"]
    if variants:
        floors_ = [f["floor"] for f in next(iter(variants.values()))]
        out.append("")
        out.append("| variant | " + " | ".join(f.replace("push ", "") for f in floors_) + " |")
        out.append("|---|" + "---|" * len(floors_))
        for name, checks in variants.items():
            out.append("| %s | %s |" % (name, " | ".join(
                "%s (%s)" % ("PASS" if f["pass"] else "FAIL", f["text"]) for f in checks)))
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
