"""The floors: what each measured part must reach, PASS or FAIL, computed from a results file."""

FLOORS = {
    "push_vs_naive_at_1": 1.0,
    "push_vs_direct_at_1": 0.8,
    "push_p50_over_direct_at_1_ms": 0.5,
    "push_vs_direct_at_4": 1.5,
    "push_vs_direct_at_16": 4.0,
    "push_cpu_per_msg_vs_bare_at_256": 1.5,
    "push_cpu_per_msg_vs_bare_paced": 1.5,
    # A paced target that answered 2xx to less than this share of the offered rate did not keep
    # up: its CPU per message was measured at another load than its peer's.
    "paced_kept_up": 0.95,
    "push_vs_direct_at_256": 30.0,
    "push_vs_bare_at_256": 0.60,
    "push_p99_over_bare_ms": 100.0,
    "rows_per_insert_at_256": 100.0,
    "rss_mib_at_512": 512.0,
    "encoder_seed_rows_per_s": 1_000_000,
    # Thread CPU time per row, this build / the --encoder-baseline build's (medians of rounds).
    "encoder_cpu_vs_baseline": 1.05,
    "backfill_one_task_rows_per_s": 300_000,
    "backfill_vs_beam": 2.0,
    "backfill_storage_one_task_rows_per_s": 300_000,
    "cold_start_s": 3.0,
    "cdc_vs_json_at_256": 0.5,
}


class Checks:
    """Floors as they are checked: name, value, limit, PASS or FAIL, and what was measured."""

    def __init__(self, target):
        self.target = target
        self.list = []

    def check(self, name, value, limit, passed, text):
        self.list.append({"floor": name, "target": self.target, "value": value, "limit": limit,
                          "pass": bool(passed), "text": text})

    def ratio(self, name, ours, other, limit, unit="x"):
        """ours / other msg/s >= limit (FAIL when the other failed: see peer_failed)."""
        if peer_failed(other):
            self.check(name, None, limit, False, "the peer failed: no ratio to judge")
            return
        value = ours["msgs_per_s"] / other["msgs_per_s"]
        shown = "%.1f%%" % (100 * value) if unit == "%" else "%.1fx" % value
        self.check(name, value, limit, value >= limit,
                   "%.0f / %.0f msg/s = %s" % (ours["msgs_per_s"], other["msgs_per_s"], shown))


def peer_failed(sample):
    """A peer that answered nothing, or answered anything but 2xx, measured no throughput to
    compare with: every floor against it is a FAIL, whatever ours did."""
    return sample["msgs_per_s"] <= 0 or sample.get("non_2xx", 0) > 0


def paired(push, target, other, concurrency, measure, worse):
    """measure(ours, other) in every round both were measured at `concurrency`, and their median;
    with an even number of rounds the worse of the middle two (`worse`: min for a floor ours must
    reach, max for a ceiling), so that no single round carries a verdict.

    Both run in the same round (bare first, naive last, the others in between), so the machine's
    slow drift (merges, other processes, the JIT) moves both; across rounds it does not. None for
    a results file without per-round samples or without a round that measured both."""
    pairs = [(a, b) for _, a, b in rounds_of(push, target, other, concurrency)]
    if not pairs:
        return None
    values = [measure(a, b) for a, b in pairs]
    return {"values": values, "median": median_of_rounds(values, worse),
            "peer_failed": any(peer_failed(b) for _, b in pairs)}


def rounds_of(push, target, other, concurrency):
    """(round, target's sample, other's sample) for every round that measured both at
    `concurrency`, in round order."""
    by_round = {}
    for row in push.get("samples", []):
        if row["concurrency"] == concurrency and row["target"] in (target, other):
            by_round.setdefault(row["round"], {})[row["target"]] = row
    return [(round_, pair[target], pair[other]) for round_, pair in sorted(by_round.items())
            if target in pair and other in pair]


def median_of_rounds(values, worse):
    """The median of `values`; with an even number the worse of the middle two."""
    return worse(sorted(values)[(len(values) - 1) // 2:len(values) // 2 + 1])


def rounds_text(values, shown):
    return "median of %d round%s (%s)" % (len(values), "" if len(values) == 1 else "s",
                                          ", ".join(shown(v) for v in values))


def paired_ratio(checks, push, name, target, other, concurrency, limit, unit="x"):
    """A ratio floor on the median of the rounds' paired ratios, else on the kept samples."""
    ratios = paired(push, target, other, concurrency,
                    lambda a, b: a["msgs_per_s"] / max(b["msgs_per_s"], 1e-9), min)
    if ratios is None:
        by = {(r["target"], r["concurrency"]): r for r in push["rows"]}
        checks.ratio(name, by[(target, concurrency)], by[(other, concurrency)], limit, unit)
        return
    if ratios["peer_failed"]:
        checks.check(name, None, limit, False, "%s failed in a round: no ratio to judge" % other)
        return

    def shown(value):
        return "%.1f%%" % (100 * value) if unit == "%" else "%.2fx" % value

    checks.check(name, ratios["median"], limit, ratios["median"] >= limit,
                 "%s, %s" % (shown(ratios["median"]), rounds_text(ratios["values"], shown)))


def paired_latency(checks, push, name, target, other, concurrency, field, limit):
    """ours' latency `field` at most the peer's + `limit` ms: on the median of the rounds'
    differences, else on the kept samples."""
    over = paired(push, target, other, concurrency, lambda a, b: a[field] - b[field], max)
    if over is None:
        by = {(r["target"], r["concurrency"]): r for r in push["rows"]}
        ours, peer = by[(target, concurrency)], by[(other, concurrency)]
        if peer_failed(peer):
            checks.check(name, None, limit, False, "the peer failed: no latency to judge")
            return
        checks.check(name, ours[field], peer[field] + limit, ours[field] <= peer[field] + limit,
                     "%.2f ms vs %.2f + %g ms" % (ours[field], peer[field], limit))
        return
    if over["peer_failed"]:
        checks.check(name, None, limit, False, "%s failed in a round: no latency to judge" % other)
        return
    checks.check(name, over["median"], limit, over["median"] <= limit,
                 "ours - %s %+.2f ms, %s" % (other, over["median"],
                                             rounds_text(over["values"], lambda v: "%+.2f" % v)))


def paired_cpu(checks, push, name, target, other, concurrency, limit):
    """ours' service CPU per message at most `limit` times the peer's, on the median of the
    rounds' paired ratios (CPU of the whole process, every thread, from /proc)."""
    ratios = paired(push, target, other, concurrency,
                    lambda a, b: a["service_cpu_us_per_msg"] / max(b["service_cpu_us_per_msg"],
                                                                   1e-9), max)
    if ratios is None:
        return
    checks.check(name, ratios["median"], limit, ratios["median"] <= limit,
                 "%.2fx, %s" % (ratios["median"],
                                rounds_text(ratios["values"], lambda v: "%.2fx" % v)))


def paced_cpu(checks, paced, target, limit):
    """The paced point: ours' CPU per message at most `limit` times the bare handler's, both
    offered the same rate, on the median of the rounds' paired ratios (the worse of the middle two
    with an even number). A round where the bare handler answered 2xx to less than
    FLOORS["paced_kept_up"] of the offered rate does not count: the machine was too busy to offer
    it. A round where only ours fell that far behind counts as measured: ours' batch waits for the
    requests it expects back, so its answers take nearly the whole interval between a
    connection's slots and a disturbance puts it behind, and ours at a lower rate spends more
    CPU per message, not less. The text names those rounds. FAIL when fewer than half the rounds
    count, or when either answered anything but 2xx."""
    rate = paced["rate"]
    concurrency = paced["rows"][0]["concurrency"]
    name = "push c=%d paced %d/s CPU/msg <= %gx bare's" % (concurrency, rate, limit)
    pairs = rounds_of(paced, target, "bare", concurrency)
    if not pairs:
        return
    failed = [t for t, i in ((target, 1), ("bare", 2)) if any(p[i]["non_2xx"] > 0 for p in pairs)]
    if failed:
        checks.check(name, None, limit, False,
                     "%s answered non-2xx in a round" % " and ".join(sorted(failed)))
        return
    enough = FLOORS["paced_kept_up"] * rate
    values, behind = [], []
    for round_, ours, bare in pairs:
        if bare["msgs_per_s"] < enough:
            continue
        if ours["msgs_per_s"] < enough:
            behind.append("%.0f%% of the offered rate in round %d"
                          % (100 * ours["msgs_per_s"] / rate, round_))
        values.append(ours["service_cpu_us_per_msg"] / max(bare["service_cpu_us_per_msg"], 1e-9))
    if 2 * len(values) < len(pairs):
        checks.check(name, None, limit, False,
                     "the bare handler answered %d%% of the offered rate in %d of %d rounds: too"
                     " few to judge" % (100 * FLOORS["paced_kept_up"], len(values), len(pairs)))
        return
    median = median_of_rounds(values, max)
    text = rounds_text(values, lambda v: "%.2fx" % v)
    if len(values) < len(pairs):
        text += "; %d of %d rounds did not count (the bare handler fell behind)" % (
            len(pairs) - len(values), len(pairs))
    if behind:
        text += "; ours answered %s" % ", ".join(behind)
    checks.check(name, median, limit, median <= limit, "%.2fx, %s" % (median, text))


def cpu_at_floor_rate(push, target, share):
    """The CPU the floor's rate would take, round by round at c=256: `share` times that round's
    bare handler msg/s at the target's CPU a message of the same round, as a fraction of the
    service's CPU and of the CPUs that wrk and ClickHouse share (the target's wrk and ClickHouse
    CPU a message). The figures a message were measured at the target's own rate and are scaled
    up as they are, ClickHouse's background work with them. None without the CPU layout or the
    figures.

    For example: the bare handler at 30,000 msg/s asks for 18,000; at 45 us of service CPU a
    message that is 0.81 of the service's CPU, and at 40 us of ClickHouse and 20 of wrk, 1.08 of
    the one CPU they share: more than it has."""
    load = (push.get("cpu_layout") or {}).get("load")
    rounds = rounds_of(push, target, "bare", 256)
    fields = ("service_cpu_us_per_msg", "clickhouse_cpu_us_per_msg", "wrk_cpu_us_per_msg")
    if not load or not rounds or any(f not in ours for _, ours, _ in rounds for f in fields):
        return None
    load_cpus = len(load.split(","))
    service, shared = [], []
    for _, ours, bare in rounds:
        rate = share * bare["msgs_per_s"]
        service.append(rate * ours["service_cpu_us_per_msg"] / 1e6)
        shared.append(rate * (ours["clickhouse_cpu_us_per_msg"] + ours["wrk_cpu_us_per_msg"])
                      / 1e6 / load_cpus)
    return {"service": service, "shared": shared, "load_cpus": load_cpus}


def add_cpu_at_floor_rate(check, push, target, share):
    """Appends cpu_at_floor_rate to the floor's text, with the rounds in which each of the two
    would need more than all of its CPUs."""
    need = cpu_at_floor_rate(push, target, share)
    if need is None or check["value"] is None:
        return

    def over(fractions):
        return sum(1 for f in fractions if f > 1)

    check["text"] += (
        "; at %gx the bare handler's rate, its CPU a message (measured at its own rate) would take"
        " %.2f-%.2f of its CPU (over 1 in %d of %d rounds) and %.2f-%.2f of the %s wrk and"
        " ClickHouse share (over 1 in %d)" % (
            share, min(need["service"]), max(need["service"]), over(need["service"]),
            len(need["service"]), min(need["shared"]), max(need["shared"]),
            "CPU" if need["load_cpus"] == 1 else "%d CPUs" % need["load_cpus"],
            over(need["shared"])))


def push_floors(push, target):
    """The push floors for one target (ours, or a variant measured beside it). The async-insert
    peer has none: where ClickHouse has no async insert queue it is one synchronous INSERT per
    message, which the direct peer measures without a handler in front."""
    checks = Checks(target)
    by = {(r["target"], r["concurrency"]): r for r in push["rows"]}

    def at(name, c):
        return by.get((name, c))

    if at(target, 1) and at("naive", 1):
        paired_ratio(checks, push, "push c=1 >= 1.0x naive handler", target, "naive", 1,
                     FLOORS["push_vs_naive_at_1"])
    if at(target, 1) and at("direct", 1):
        paired_ratio(checks, push, "push c=1 >= 0.8x direct INSERT", target, "direct", 1,
                     FLOORS["push_vs_direct_at_1"])
        paired_latency(checks, push, "push c=1 p50 <= direct p50 + 0.5 ms", target, "direct", 1,
                       "p50_ms", FLOORS["push_p50_over_direct_at_1_ms"])
    for c, key in ((4, "push_vs_direct_at_4"), (16, "push_vs_direct_at_16")):
        if at(target, c) and at("direct", c):
            paired_ratio(checks, push, "push c=%d >= %gx direct INSERT" % (c, FLOORS[key]),
                         target, "direct", c, FLOORS[key])
    ours, bare, direct = at(target, 256), at("bare", 256), at("direct", 256)
    if ours and bare:
        paired_cpu(checks, push, "push c=256 CPU/msg <= 1.5x bare handler's", target, "bare",
                   256, FLOORS["push_cpu_per_msg_vs_bare_at_256"])
        paired_ratio(checks, push, "push c=256 >= 0.6x bare handler", target, "bare", 256,
                     FLOORS["push_vs_bare_at_256"])
        add_cpu_at_floor_rate(checks.list[-1], push, target, FLOORS["push_vs_bare_at_256"])
        paired_latency(checks, push, "push c=256 p99 <= bare p99 + 100 ms", target, "bare", 256,
                       "p99_ms", FLOORS["push_p99_over_bare_ms"])
    if push.get("paced"):
        paced_cpu(checks, push["paced"], target, FLOORS["push_cpu_per_msg_vs_bare_paced"])
    if ours and direct:
        paired_ratio(checks, push, "push c=256 >= 30x direct INSERT", target, "direct", 256,
                     FLOORS["push_vs_direct_at_256"])
    if ours and "rows_per_insert" in ours:
        checks.check("push c=256 >= 100 rows per INSERT", ours["rows_per_insert"],
                     FLOORS["rows_per_insert_at_256"],
                     ours["rows_per_insert"] >= FLOORS["rows_per_insert_at_256"],
                     "%.1f rows/INSERT (%d INSERTs)" % (ours["rows_per_insert"], ours["inserts"]))
    ours = at(target, 512)
    if ours:
        checks.check("service RSS < 512 MiB at c=512", ours["peak_rss_mib"],
                     FLOORS["rss_mib_at_512"], ours["peak_rss_mib"] < FLOORS["rss_mib_at_512"],
                     "peak %.0f MiB (at the end %.0f MiB)" % (ours["peak_rss_mib"],
                                                             ours["rss_mib"]))
    return checks.list


def fleet_floors(fleet):
    """The largest fleet with flow control at full load: no 252, INSERTs/s within the budget,
    active parts below parts_to_delay_insert, nothing lost."""
    checks = Checks("fleet")
    rows = [r for r in fleet["rows"] if r["mode"] == "flow"]
    if not rows:
        return []
    r = max(rows, key=lambda row: row["instances"])
    label = "fleet of %d" % r["instances"]
    checks.check("%s: no client sees 252" % label, r["too_many_parts"] + r["failures"], 0,
                 r["too_many_parts"] == 0 and r["failures"] == 0,
                 "%d INSERTs refused with 252, %d answers 5xx" % (r["too_many_parts"],
                                                                  r["failures"]))
    # The budget is counted as ClickHouse counts it: parts written (block numbers).
    rate = r.get("parts_written_per_s", r["inserts_per_s"])
    checks.check("%s: INSERTs/s within the budget" % label, rate, fleet["budget"],
                 rate <= fleet["budget"],
                 "%.1f parts written/s (%.1f INSERTs/s) against %d; busiest seconds %s INSERTs" % (
                     rate, r["inserts_per_s"], fleet["budget"],
                     ", ".join(str(n) for n in r["inserts_per_second_busiest"][:3])))
    checks.check("%s: active parts below parts_to_delay_insert" % label,
                 r["partition_parts_max"], r["parts_to_delay_insert"],
                 r["partition_parts_max"] < r["parts_to_delay_insert"],
                 "at most %d against %d" % (r["partition_parts_max"], r["parts_to_delay_insert"]))
    checks.check("%s: zero lost" % label, r["lost"], 0, r["lost"] == 0 and r["altered_rows"] == 0,
                 "%d acknowledged, %d of them not in the table, %d rows altered" % (
                     r["acked_ids"], r["lost"], r["altered_rows"]))
    return checks.list


def cdc_floors(cdc):
    """Debezium change events at c=256 at least half as fast as the same rows as plain JSON, on
    the median of the rounds' paired ratios."""
    checks = Checks("debezium")
    by = {(r["target"], r["concurrency"]): r for r in cdc["rows"]}
    if ("debezium", 256) in by and ("json", 256) in by:
        paired_ratio(checks, cdc, "cdc c=256 >= 0.5x JSON of the same rows", "debezium", "json",
                     256, FLOORS["cdc_vs_json_at_256"])
    return checks.list


def floors(results):
    checks = Checks("ours")
    push = results.get("push")
    if push:
        checks.list += push_floors(push, "ours")
    fleet = results.get("fleet")
    if fleet:
        checks.list += fleet_floors(fleet)
    cdc = results.get("cdc")
    if cdc:
        checks.list += cdc_floors(cdc)
    enc = results.get("encoder")
    if enc:
        checks.check("encoder >= 1,000,000 seed rows/s/core", enc["seed_rows_per_s"],
                     FLOORS["encoder_seed_rows_per_s"],
                     enc["seed_rows_per_s"] >= FLOORS["encoder_seed_rows_per_s"],
                     "%.0f rows/s" % enc["seed_rows_per_s"])
        for key, label in (("seed_ns", "seed row"), ("mixed20_ns", "20-column row")):
            compared = enc.get("cpu_compare", {}).get(key)
            if compared:
                checks.check("encoder CPU per %s <= 1.05x baseline's" % label, compared["ratio"],
                             FLOORS["encoder_cpu_vs_baseline"],
                             compared["ratio"] <= FLOORS["encoder_cpu_vs_baseline"],
                             "%.3fx (median of the rounds' ratios; medians %.1f / %.1f ns)" % (
                                 compared["ratio"], compared["ours"], compared["baseline"]))
    back = results.get("backfill")
    if back:
        one = back["tasks"]["1"]["rows_per_s"]
        checks.check("backfill 1 task >= 300,000 rows/s", one,
                     FLOORS["backfill_one_task_rows_per_s"],
                     one >= FLOORS["backfill_one_task_rows_per_s"], "%.0f rows/s" % one)
        storage = back.get("storage", {}).get("tasks", {}).get("1")
        if storage:
            value = storage["rows_per_s"]
            limit = FLOORS["backfill_storage_one_task_rows_per_s"]
            checks.check("backfill Storage Read API 1 task >= 300,000 rows/s", value, limit,
                         value >= limit, "%.0f rows/s" % value)
        beam = back["beam_clickhouseio"]["rows_per_s"]
        if beam:
            checks.check("backfill 1 task >= 2x Beam ClickHouseIO", one / beam,
                         FLOORS["backfill_vs_beam"], one / beam >= FLOORS["backfill_vs_beam"],
                         "%.0f / %.0f rows/s = %.1fx" % (one, beam, one / beam))
    cold = results.get("cold_start")
    if cold:
        key = next(k for k in ("the image's command + its AOT cache (shipped) [2 CPU]",
                               "ours, JDK 25 (image) [2 CPU]", "ours, JDK 17 [2 CPU]")
                   if k in cold["variants"])
        value = cold["variants"][key]["median_s"]
        checks.check("cold start to first 204 < 3 s", value, FLOORS["cold_start_s"],
                     value < FLOORS["cold_start_s"], "%.2f s (%s, median)" % (value, key))
    return checks.list


def variant_floors(results):
    push = results.get("push")
    if not push:
        return {}
    return {v["name"]: push_floors(push, v["name"]) for v in push.get("variants", [])}
