"""Where a push request's time goes, from the service's own timings: the sums of nanoseconds per
phase that GET /metrics carries (request-*-ns), read before and after a measured run, beside
ClickHouse's own INSERT time from system.query_log. Standard library only."""

import urllib.request

PHASES = ["parse", "batch_wait", "write", "answer"]
METRICS = {"request_phases_timed_total": "timed", "request_parse_ns_total": "parse",
           "request_batch_wait_ns_total": "batch_wait", "request_write_ns_total": "write",
           "request_answer_ns_total": "answer"}
# The breakdown's parts in the order a request meets them, with what each means.
PARTS = [("parse", "parse and encode"), ("batch_wait", "wait in the batch"),
         ("wire", "INSERT on the wire (and the writer)"), ("clickhouse", "ClickHouse's INSERT"),
         ("answer", "answer back to the request"), ("outside", "outside the service's timings")]
COLOURS = {"parse": "#1a73e8", "batch_wait": "#f29900", "wire": "#9334e6",
           "clickhouse": "#188038", "answer": "#d93025", "outside": "#9aa0a6"}


def phase_sums(port):
    """The request-*-ns sums of the service on `port`, or None when it has none (a peer)."""
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as answer:
            text = answer.read().decode()
    except OSError:
        return None
    sums = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        key = METRICS.get(name.replace("pubsub_clickhouse_", "", 1))
        if key and name.startswith("pubsub_clickhouse_"):
            sums[key] = float(value)
    return sums if len(sums) == len(METRICS) else None


def breakdown(before, after, clickhouse_ms, mean_ms):
    """Milliseconds per request in each of PARTS between two readings of phase_sums: the INSERT
    split into ClickHouse's own time (query_log's mean) and the rest, and what the client saw
    (wrk's mean) beyond the service's phases. None without two readings or a timed request."""
    if not before or not after or after["timed"] <= before["timed"]:
        return None
    timed = after["timed"] - before["timed"]
    ms = {phase: (after[phase] - before[phase]) / timed / 1e6 for phase in PHASES}
    clickhouse = min(clickhouse_ms or 0.0, ms["write"])
    out = {"parse": ms["parse"], "batch_wait": ms["batch_wait"],
           "wire": ms["write"] - clickhouse, "clickhouse": clickhouse, "answer": ms["answer"]}
    out["outside"] = max(0.0, mean_ms - sum(out.values())) if mean_ms else 0.0
    out["requests_timed"] = timed
    return out


def rows_with_breakdown(push, target="ours"):
    return [r for r in push["rows"] if r["target"] == target and r.get("breakdown_ms")]


def print_breakdown(push):
    rows = rows_with_breakdown(push)
    if not rows:
        return
    print("\nWhere a request's time goes (ours, ms per request, the median round's service"
          " timings; ClickHouse's from query_log; outside: wrk's mean beyond them)")
    print("%5s " % "conc" + " ".join("%10s" % key for key, _ in PARTS) + " %9s" % "wrk mean")
    for r in rows:
        b = r["breakdown_ms"]
        print("%5d " % r["concurrency"] + " ".join("%10.3f" % b[key] for key, _ in PARTS)
              + " %9.3f" % r.get("mean_ms", 0))


def markdown(push):
    rows = rows_with_breakdown(push)
    if not rows:
        return []
    out = ["| conc. | " + " | ".join(label for _, label in PARTS) + " | client's mean |",
           "|---:|" + "---:|" * (len(PARTS) + 1)]
    for r in rows:
        b = r["breakdown_ms"]
        out.append("| %d | %s | %.2f ms |" % (
            r["concurrency"], " | ".join("%.2f ms" % b[key] for key, _ in PARTS),
            r.get("mean_ms", 0)))
    return out + [""]


def breakdown_svg(results, footer):
    """Horizontal stacked bars, one per concurrency: a request's milliseconds by part."""
    rows = rows_with_breakdown(results["push"])
    if not rows:
        return None
    left, top, width, bar = 110, 60, 740, 34
    longest = max(sum(r["breakdown_ms"][key] for key, _ in PARTS) for r in rows) or 1
    scale = width / longest
    parts = ['<text x="%d" y="%d" font-size="16" font-weight="bold">Where a push request\'s time'
             ' goes (ours, ms)</text>' % (left, top - 28)]
    y = top
    for r in rows:
        parts.append('<text x="%d" y="%d" text-anchor="end" font-size="13">c=%d</text>'
                     % (left - 8, y + bar / 2 + 4, r["concurrency"]))
        x = left
        for key, _ in PARTS:
            w = r["breakdown_ms"][key] * scale
            parts.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>'
                         % (x, y, max(w, 0), bar, COLOURS[key]))
            x += w
        parts.append('<text x="%.1f" y="%d" font-size="12">%.2f ms</text>'
                     % (x + 6, y + bar / 2 + 4, sum(r["breakdown_ms"][k] for k, _ in PARTS)))
        y += bar + 16
    x = left
    for key, label in PARTS:
        parts.append('<rect x="%d" y="%d" width="14" height="14" fill="%s"/>'
                     % (x, y + 6, COLOURS[key]))
        parts.append('<text x="%d" y="%d" font-size="12">%s</text>' % (x + 18, y + 18, label))
        x += 30 + 6.6 * len(label)
        if x > left + width - 120:
            x, y = left, y + 22
    height = y + 70
    return "\n".join(['<svg xmlns="http://www.w3.org/2000/svg" width="900" height="%d"'
                      ' font-family="DejaVu Sans, Arial, sans-serif">' % height,
                      '<rect width="100%" height="100%" fill="white"/>'] + parts
                     + ['<text x="20" y="%d" fill="#555" font-size="12">%s</text>'
                        % (height - 10, footer), "</svg>"]) + "\n"
