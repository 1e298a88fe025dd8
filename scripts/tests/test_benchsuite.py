"""The bench suite's report and the cluster run's table, rebuilt from the runs docs/performance.md
cites: today's code must print exactly what those runs printed, from their results files."""

import contextlib
import glob
import http.server
import io
import json
import os
import shutil
import subprocess
import tempfile
import threading
import unittest
import unittest.mock

from benchsuite import cluster
from benchsuite.__main__ import report
from benchsuite.processes import parse_wrk_output, server_command, wrk
from benchsuite.pull import schedule
from benchsuite.report import print_pull, render_markdown
from benchsuite.breakdown import breakdown
from benchsuite.clickhouse import settle
from benchsuite.encoder import cpu_ratios, parse_cpu_time
from benchsuite.floors import floors, push_floors
from benchsuite import push
from benchsuite.machine import git_commit, jar_sha256
from benchsuite.push import combine_wrk, median_rows
from benchsuite.settings import IMAGE_JAVA, SERVICE_JVM

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = os.path.join(REPO, "docs", "perf", "runs")
CLUSTER_RUN = os.path.join(REPO, "docs", "perf", "runs", "2026-12-01", "cluster-2026-12-01")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class SuiteReportTest(unittest.TestCase):
    def test_reporting_a_run_again_writes_what_it_wrote(self):
        files = sorted(glob.glob(os.path.join(RUNS, "*", "results-*.json")))
        runs = {os.path.join(RUNS, d) for d in os.listdir(RUNS)
                if os.path.isdir(os.path.join(RUNS, d))}
        # every run kept is a suite run with one results file, but the cluster run
        # (ClusterReportTest)
        self.assertTrue(files)
        self.assertEqual(sorted(os.path.dirname(f) for f in files),
                         sorted(runs - {os.path.dirname(CLUSTER_RUN)}))
        for json_file in files:
            run, stem = os.path.dirname(json_file), os.path.basename(json_file)[:-len(".json")]
            with self.subTest(run=stem), tempfile.TemporaryDirectory() as tmp:
                json_path = os.path.join(tmp, stem + ".json")
                shutil.copy(json_file, json_path)
                with contextlib.redirect_stdout(io.StringIO()) as printed:
                    report(json.loads(read(json_path)), json_path)
                self.assertEqual(printed.getvalue().split("\nWrote ")[0] + "\n",
                                 read(os.path.join(run, stem + ".txt")))
                written = sorted(os.listdir(tmp))
                self.assertEqual(written, sorted(os.listdir(run)))
                for name in written:
                    self.assertEqual(read(os.path.join(tmp, name)), read(os.path.join(run, name)),
                                     name)


def sample(target, concurrency, round_, msgs_per_s, p50_ms=2.0, cpu_us=10.0, non_2xx=0):
    return {"target": target, "concurrency": concurrency, "round": round_,
            "msgs_per_s": msgs_per_s, "p50_ms": p50_ms, "p90_ms": p50_ms, "p99_ms": 2 * p50_ms,
            "service_cpu_us_per_msg": cpu_us, "non_2xx": non_2xx, "others_cpu_cores": 0.1}


class MedianOfRoundsTest(unittest.TestCase):
    def test_each_figure_is_the_median_of_its_rounds_with_its_spread(self):
        samples = [sample("ours", 1, i + 1, m, p) for i, (m, p) in
                   enumerate([(100, 5.0), (300, 1.0), (200, 3.0), (500, 2.0), (400, 4.0)])]
        [row] = median_rows(samples)
        self.assertEqual((row["msgs_per_s"], row["p50_ms"], row["rounds"]), (300, 3.0, 5))
        self.assertEqual(row["spread"]["msgs_per_s"], [100, 500])
        self.assertEqual(row["spread"]["p50_ms"], [1.0, 5.0])
        self.assertNotIn("round", row)

    def test_an_even_number_of_rounds_takes_the_lower_middle(self):
        samples = [sample("ours", 16, i + 1, m) for i, m in enumerate([400, 100, 300, 200])]
        self.assertEqual(median_rows(samples)[0]["msgs_per_s"], 200)

    def test_a_round_that_answered_non_2xx_shows_in_its_point(self):
        samples = [sample("direct", 256, i + 1, 100, non_2xx=n) for i, n in enumerate([0, 7, 0])]
        self.assertEqual(median_rows(samples)[0]["non_2xx"], 7)

    def test_points_keep_the_order_the_samples_first_name_them(self):
        samples = [sample(t, c, r, 1) for r in (1, 2) for c in (1, 16) for t in ("bare", "ours")]
        self.assertEqual([(r["target"], r["concurrency"]) for r in median_rows(samples)],
                         [("bare", 1), ("ours", 1), ("bare", 16), ("ours", 16)])


def wrk_result(requests, seconds, p50_us, max_us, non_2xx=0):
    return {"requests": requests, "duration_us": seconds * 1_000_000, "non_2xx": non_2xx,
            "errors_connect": 0, "errors_read": 1, "errors_write": 0, "errors_timeout": 0,
            "mean_us": p50_us + 100, "p50_us": p50_us, "p90_us": 2 * p50_us, "p99_us": 3 * p50_us,
            "max_us": max_us}


class SlicedPointTest(unittest.TestCase):
    def test_a_targets_slices_sum_to_one_result(self):
        combined = combine_wrk([wrk_result(100, 1, 4000, 9000, non_2xx=2),
                                wrk_result(300, 1, 2000, 30000)])
        self.assertEqual((combined["requests"], combined["duration_us"], combined["non_2xx"]),
                         (400, 2_000_000, 2))
        self.assertEqual(combined["errors_read"], 2)
        # weighted by requests: (100 * 4000 + 300 * 2000) / 400
        self.assertEqual(combined["p50_us"], 2500)
        self.assertEqual(combined["p99_us"], 7500)
        self.assertEqual(combined["mean_us"], 2600)
        self.assertEqual(combined["max_us"], 30000)

    def test_one_slice_is_returned_as_it_is(self):
        result = wrk_result(10, 10, 123, 456)
        self.assertIs(combine_wrk([result]), result)

    def test_every_target_follows_every_other_equally_often(self):
        for n in range(2, 8):
            orders = push.slice_orders(n)
            self.assertTrue(all(sorted(order) == list(range(n)) for order in orders))
            follows = [(order[i], order[i + 1]) for order in orders for i in range(n - 1)]
            counts = {pair: follows.count(pair) for pair in set(follows)}
            self.assertEqual(len(counts), n * (n - 1), n)  # every ordered pair occurs
            self.assertEqual(len(set(counts.values())), 1, n)  # and equally often

    def run_point(self, targets, slices, duration=10):
        """measure_side_by_side with every outside call faked; returns the rows and the calls.
        Only wrk and sleep move the fake counters: what a sleep adds belongs to no target."""
        calls, clock = [], {"cpu": {}, "ch": 0.0}

        def fake_sleep(seconds):
            calls.append(("sleep", seconds))
            clock["ch"] += 1000.0
            for port in clock["cpu"]:
                clock["cpu"][port] += 1000.0

        def fake_wrk(port, connections, seconds, script, script_args, rate):
            calls.append(("wrk", port, seconds))
            clock["ch"] += port / 100  # ClickHouse's CPU seconds grow with the target that runs
            clock["cpu"][port] = clock["cpu"].get(port, 0.0) + port / 1000
            return wrk_result(port, seconds, port, port)

        def fake_phase_sums(port):
            calls.append(("phases", port))
            return {"timed": 0.0, "parse": 0.0, "batch_wait": 0.0, "write": 0.0, "answer": 0.0}

        fakes = {
            "wrk": fake_wrk, "phase_sums": fake_phase_sums,
            "truncate": lambda table: calls.append(("truncate", table)),
            "settle": lambda cpu_seconds: (0.5, True), "ch_now": lambda: "t",
            "cpu_seconds": lambda pid: clock["ch"] if pid == 99 else clock["cpu"].get(pid, 0.0),
            "context_switches": lambda pid: clock["cpu"].get(pid, 0.0) * 1000,
            "memory_kib": lambda pid: (1024, 2048), "machine_busy_seconds": lambda: 0.0,
            "children_cpu_seconds": lambda: 0.0, "log": lambda text: None,
            "insert_stats": lambda table, t0, t1: calls.append(("stats", table)) or {
                "inserts": 1, "inserted_rows": 1, "insert_ms_mean": 1.0},
            "active_parts": lambda table: 1, "ch": lambda sql: "1",
        }
        saved = {name: getattr(push, name) for name in fakes}
        saved_tables, saved_sleep = dict(push.TABLES), push.time.sleep
        try:
            for name, fake in fakes.items():
                setattr(push, name, fake)
            push.time.sleep = fake_sleep
            push.TABLES.update({name: "table_" + name for name, _ in targets})

            class Args:
                warmup = 5
            Args.duration = duration
            rows = push.measure_side_by_side(targets, 99, 1, Args, slices=slices)
        finally:
            for name, value in saved.items():
                setattr(push, name, value)
            push.time.sleep = saved_sleep
            push.TABLES.clear()
            push.TABLES.update(saved_tables)
        return rows, calls

    @staticmethod
    def target(port):
        class Target:
            pass
        server = Target()
        server.port, server.process = port, Target()
        server.process.pid = port  # the fake CPU counters are kept by port
        return server

    def test_the_targets_alternate_and_each_row_sums_only_its_own_slices(self):
        targets = [("a", self.target(1)), ("b", self.target(2)), ("c", self.target(3))]
        rows, calls = self.run_point(targets, slices=5)
        runs = [call for call in calls if call[0] == "wrk"]
        self.assertEqual(runs[:3], [("wrk", 1, 5), ("wrk", 2, 5), ("wrk", 3, 5)])  # warm-ups
        orders = push.slice_orders(3)
        self.assertEqual([port for _, port, _ in runs[3:]],
                         [i + 1 for k in range(5) for i in orders[k]])
        self.assertEqual({seconds for _, _, seconds in runs[3:]}, {2})
        self.assertEqual([(r["target"], r["requests"], r["seconds"], r["slices"]) for r in rows],
                         [("a", 5, 10.0, 5), ("b", 10, 10.0, 5), ("c", 15, 10.0, 5)])
        for row, port in zip(rows, (1, 2, 3)):
            self.assertAlmostEqual(row["clickhouse_cpu_s"], 5 * port / 100)
            self.assertAlmostEqual(row["service_cpu_s"], 5 * port / 1000)
            self.assertAlmostEqual(row["context_switches_per_msg"], 5 * port / (5 * port))
        # each slice is followed by its gap, which no target's counters include (checked above)
        slice_ends = [i for i, call in enumerate(calls) if call[0] == "wrk"][3:]
        self.assertEqual({calls[i + 1] for i in slice_ends}, {("sleep", push.SLICE_GAP_SECONDS)})
        # every service's phases are read after the last slice, before anything else runs
        last_run = max(i for i, call in enumerate(calls) if call[0] == "wrk")
        self.assertEqual([call[0] for call in calls[last_run + 1:last_run + 5]],
                         ["sleep", "phases", "phases", "phases"])

    def test_one_slice_measures_as_one_point_always_did(self):
        rows, calls = self.run_point([("a", self.target(7))], slices=1, duration=8)
        self.assertEqual(calls, [("wrk", 7, 5), ("truncate", "table_a"), ("phases", 7),
                                 ("wrk", 7, 8), ("phases", 7), ("sleep", 1.2),
                                 ("stats", "table_a"), ("truncate", "table_a")])
        self.assertNotIn("slices", rows[0])

    def test_a_duration_that_does_not_cut_into_whole_slices_is_refused(self):
        with self.assertRaises(ValueError):
            self.run_point([("a", self.target(1))], slices=3, duration=10)

class SettleTest(unittest.TestCase):
    """A fake clock that only sleep() moves, and ClickHouse's CPU seconds as a function of it."""

    def setUp(self):
        self.now = 0.0
        self.sleeps = []

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self):
        return self.now

    def settle(self, busy_cores_at, **limits):
        """busy_cores_at(t): the cores ClickHouse uses at time t, constant over each window."""
        used = [0.0]
        last = [0.0]

        def cpu_seconds():
            used[0] += busy_cores_at(last[0]) * (self.now - last[0])
            last[0] = self.now
            return used[0]

        return settle(cpu_seconds, sleep=self.sleep, clock=self.clock, **limits)

    def test_waits_for_the_first_half_second_under_a_tenth_of_a_core(self):
        # 0.6 cores for the first second, 0.2 for the next half, then 0.02
        waited, settled = self.settle(lambda t: 0.6 if t < 1.0 else 0.2 if t < 1.5 else 0.02)
        self.assertEqual((waited, settled), (2.0, True))
        self.assertEqual(self.sleeps, [0.5, 0.5, 0.5, 0.5])

    def test_a_quiet_clickhouse_is_measured_over_one_whole_window(self):
        self.assertEqual(self.settle(lambda t: 0.0), (0.5, True))
        self.assertEqual(self.sleeps, [0.5])

    def test_gives_up_at_the_limit_and_says_so(self):
        self.assertEqual(self.settle(lambda t: 0.5, limit_s=2.0), (2.0, False))

    def test_a_window_that_lasted_longer_is_judged_by_its_length(self):
        # each sleep overruns to 2 s: 0.15 CPU-seconds in it is 0.075 of a core, quiet
        def slow_sleep(seconds):
            self.now += 2.0
        cpu = iter([0.0, 0.15])
        self.assertEqual(settle(lambda: next(cpu), sleep=slow_sleep, clock=self.clock),
                         (2.0, True))


class PushFloorsTest(unittest.TestCase):
    """The floors of the issue, each at its limit (PASS) and just past it (FAIL), judged on the
    median of five interleaved rounds."""

    def push(self, ours, peers, concurrency):
        """`ours` and `peers` ({name: sample kwargs}) the same in all five rounds."""
        samples = []
        for round_ in range(1, 6):
            for name, kwargs in [("ours", ours)] + list(peers.items()):
                samples.append(sample(name, concurrency, round_, **kwargs))
        return {"samples": samples, "rows": median_rows(samples)}

    def verdict(self, push, floor):
        [check] = [c for c in push_floors(push, "ours") if c["floor"] == floor]
        return "PASS" if check["pass"] else "FAIL"

    def test_c1_at_least_0_8x_the_direct_insert(self):
        floor = "push c=1 >= 0.8x direct INSERT"
        self.assertEqual(self.verdict(self.push({"msgs_per_s": 80}, {"direct": {"msgs_per_s": 100}},
                                                1), floor), "PASS")
        self.assertEqual(self.verdict(self.push({"msgs_per_s": 79}, {"direct": {"msgs_per_s": 100}},
                                                1), floor), "FAIL")

    def test_c1_p50_at_most_half_a_millisecond_over_the_direct_insert(self):
        floor = "push c=1 p50 <= direct p50 + 0.5 ms"
        direct = {"direct": {"msgs_per_s": 100, "p50_ms": 2.0}}
        self.assertEqual(self.verdict(self.push({"msgs_per_s": 90, "p50_ms": 2.5}, direct, 1),
                                      floor), "PASS")
        self.assertEqual(self.verdict(self.push({"msgs_per_s": 90, "p50_ms": 2.51}, direct, 1),
                                      floor), "FAIL")

    def test_c1_at_least_the_naive_handler(self):
        floor = "push c=1 >= 1.0x naive handler"
        naive = {"naive": {"msgs_per_s": 100}}
        self.assertEqual(self.verdict(self.push({"msgs_per_s": 100}, naive, 1), floor), "PASS")
        self.assertEqual(self.verdict(self.push({"msgs_per_s": 99}, naive, 1), floor), "FAIL")

    def test_c4_and_c16_against_the_direct_insert(self):
        for c, limit in ((4, 1.5), (16, 4)):
            floor = "push c=%d >= %gx direct INSERT" % (c, limit)
            direct = {"direct": {"msgs_per_s": 100}}
            self.assertEqual(self.verdict(self.push({"msgs_per_s": 100 * limit}, direct, c),
                                          floor), "PASS")
            self.assertEqual(self.verdict(self.push({"msgs_per_s": 100 * limit - 1}, direct, c),
                                          floor), "FAIL")

    def test_c256_cpu_per_message_at_most_1_5x_the_bare_handler(self):
        floor = "push c=256 CPU/msg <= 1.5x bare handler's"
        bare = {"bare": {"msgs_per_s": 100, "cpu_us": 10.0}}
        self.assertEqual(self.verdict(self.push({"msgs_per_s": 60, "cpu_us": 15.0}, bare, 256),
                                      floor), "PASS")
        self.assertEqual(self.verdict(self.push({"msgs_per_s": 60, "cpu_us": 15.1}, bare, 256),
                                      floor), "FAIL")

    def test_c256_throughput_against_the_direct_insert_and_the_bare_handler(self):
        peers = {"bare": {"msgs_per_s": 1000}, "direct": {"msgs_per_s": 20}}
        at_limits = self.push({"msgs_per_s": 600}, peers, 256)
        self.assertEqual(self.verdict(at_limits, "push c=256 >= 0.6x bare handler"), "PASS")
        self.assertEqual(self.verdict(at_limits, "push c=256 >= 30x direct INSERT"), "PASS")
        below = self.push({"msgs_per_s": 599}, {"bare": {"msgs_per_s": 1000},
                                                "direct": {"msgs_per_s": 20}}, 256)
        self.assertEqual(self.verdict(below, "push c=256 >= 0.6x bare handler"), "FAIL")
        self.assertEqual(self.verdict(below, "push c=256 >= 30x direct INSERT"), "FAIL")

    def test_c256_against_the_bare_handler_says_what_cpu_its_rate_would_take(self):
        floor = "push c=256 >= 0.6x bare handler"

        def push(target="ours", bare_non_2xx=0):
            samples = []
            # Round by round the bare handler's msg/s; the target's service, ClickHouse and wrk
            # us a message.
            for round_, bare_rate, service, clickhouse, wrk_us in (
                    (1, 20000, 40.0, 30.0, 20.0), (2, 30000, 45.0, 40.0, 20.0),
                    (3, 25000, 50.0, 20.0, 20.0), (4, 25000, 70.0, 20.0, 20.0)):
                ours = sample(target, 256, round_, 12000, cpu_us=service)
                ours.update(clickhouse_cpu_us_per_msg=clickhouse, wrk_cpu_us_per_msg=wrk_us)
                samples += [ours, sample("bare", 256, round_, bare_rate,
                                         non_2xx=bare_non_2xx)]
            return {"samples": samples, "rows": median_rows(samples),
                    "cpu_layout": {"service": "1", "load": "0"}}

        def text(push, target="ours"):
            [check] = [c for c in push_floors(push, target) if c["floor"] == floor]
            return check["text"]

        # At 0.6x: 12,000, 18,000, 15,000 and 15,000 msg/s. The service's CPU 0.48, 0.81, 0.75,
        # 1.05 (round 4 over); wrk's and ClickHouse's 0.60, 1.08, 0.60, 0.60 (round 2 over).
        expected = ("; at 0.6x the bare handler's rate, its CPU a message (measured at its own"
                    " rate) would take 0.48-1.05 of its CPU (over 1 in 1 of 4 rounds) and"
                    " 0.60-1.08 of the CPU wrk and ClickHouse share (over 1 in 1)")
        measured = push()
        self.assertTrue(text(measured).endswith(expected), text(measured))
        self.assertTrue(text(push("null"), "null").endswith(expected))
        measured["cpu_layout"] = {"service": "2", "load": "0,1"}
        self.assertTrue(text(measured).endswith(
            "and 0.30-0.54 of the 2 CPUs wrk and ClickHouse share (over 1 in 0)"), text(measured))
        measured["cpu_layout"] = {"service": None, "load": None}
        self.assertNotIn("would take", text(measured))
        self.assertEqual(text(push(bare_non_2xx=1)), "bare failed in a round: no ratio to judge")

    def test_two_bad_rounds_of_five_do_not_decide_three_do(self):
        floor = "push c=1 >= 0.8x direct INSERT"

        def push(bad_rounds):
            samples = []
            for round_ in range(1, 6):
                samples.append(sample("ours", 1, round_, 50 if round_ <= bad_rounds else 90))
                samples.append(sample("direct", 1, round_, 100))
            return {"samples": samples, "rows": median_rows(samples)}

        self.assertEqual(self.verdict(push(2), floor), "PASS")
        self.assertEqual(self.verdict(push(3), floor), "FAIL")

    def test_a_peer_that_answered_non_2xx_fails_the_floor(self):
        floor = "push c=1 >= 0.8x direct INSERT"
        failed = self.push({"msgs_per_s": 100}, {"direct": {"msgs_per_s": 100, "non_2xx": 3}}, 1)
        self.assertEqual(self.verdict(failed, floor), "FAIL")

    def paced(self, ours, bare, rate=100):
        """The paced point: `ours` and `bare` (sample kwargs) the same in all five rounds."""
        samples = [sample(name, 256, round_, **kwargs) for round_ in range(1, 6)
                   for name, kwargs in (("bare", bare), ("ours", ours))]
        push = self.push({"msgs_per_s": 60}, {"bare": {"msgs_per_s": 100}}, 256)
        push["paced"] = {"rate": rate, "samples": samples, "rows": median_rows(samples)}
        return push

    PACED = "push c=256 paced 100/s CPU/msg <= 1.5x bare's"

    def paced_check(self, push):
        [check] = [c for c in push_floors(push, "ours") if c["floor"] == self.PACED]
        return check

    @staticmethod
    def in_rounds(push, target, rounds, **fields):
        for row in push["paced"]["samples"]:
            if row["target"] == target and row["round"] in rounds:
                row.update(fields)

    def test_paced_cpu_per_message_at_most_1_5x_the_bare_handlers(self):
        bare = {"msgs_per_s": 100, "cpu_us": 10.0}
        self.assertEqual(self.verdict(self.paced({"msgs_per_s": 99, "cpu_us": 15.0}, bare),
                                      self.PACED), "PASS")
        self.assertEqual(self.verdict(self.paced({"msgs_per_s": 99, "cpu_us": 15.1}, bare),
                                      self.PACED), "FAIL")

    def test_rounds_where_the_bare_handler_fell_behind_do_not_count(self):
        push = self.paced({"msgs_per_s": 99, "cpu_us": 10.0}, {"msgs_per_s": 100, "cpu_us": 10.0})
        # Rounds 1 and 2: the machine was busy; ours' CPU per message there would fail the floor.
        self.in_rounds(push, "bare", {1, 2}, msgs_per_s=90)
        self.in_rounds(push, "ours", {1, 2}, msgs_per_s=80, service_cpu_us_per_msg=20.0)
        check = self.paced_check(push)
        self.assertTrue(check["pass"])
        self.assertEqual(check["value"], 1.0)
        self.assertIn("2 of 5 rounds did not count", check["text"])
        # Round 3 too: three of five rounds do not count, too few to judge.
        self.in_rounds(push, "bare", {3}, msgs_per_s=50)
        check = self.paced_check(push)
        self.assertFalse(check["pass"])
        self.assertIn("in 2 of 5 rounds: too few to judge", check["text"])

    def test_rounds_where_only_ours_fell_behind_count_as_measured_and_are_named(self):
        push = self.paced({"msgs_per_s": 99, "cpu_us": 10.0}, {"msgs_per_s": 100, "cpu_us": 10.0})
        self.in_rounds(push, "ours", {1, 2}, msgs_per_s=90, service_cpu_us_per_msg=16.0)
        check = self.paced_check(push)
        self.assertTrue(check["pass"])
        self.assertIn("1.60x, 1.60x, 1.00x, 1.00x, 1.00x", check["text"])
        self.assertIn("ours answered 90% of the offered rate in round 1, 90% of the offered rate"
                      " in round 2", check["text"])
        self.in_rounds(push, "ours", {3}, msgs_per_s=90, service_cpu_us_per_msg=16.0)
        self.assertFalse(self.paced_check(push)["pass"])

    def test_a_non_2xx_answer_in_a_paced_round_fails(self):
        for target in ("ours", "bare"):
            push = self.paced({"msgs_per_s": 99, "cpu_us": 1.0}, {"msgs_per_s": 100,
                                                                  "cpu_us": 10.0})
            self.in_rounds(push, target, {4}, non_2xx=1)
            check = self.paced_check(push)
            self.assertFalse(check["pass"])
            self.assertEqual(check["text"], "%s answered non-2xx in a round" % target)

    def test_the_async_insert_peer_has_no_floor(self):
        push = self.push({"msgs_per_s": 1}, {"async": {"msgs_per_s": 100}}, 1)
        self.assertEqual(push_floors(push, "ours"), [])


class EncoderCpuCompareTest(unittest.TestCase):
    """The CPU time per row beside a baseline build: medians of the rounds, and the 1.05x floor."""

    @staticmethod
    def compared(ours_seed, base_seed):
        samples = {
            "ours": [parse_cpu_time("seed_ns=%s mixed20_ns=2000.00 sink=0" % n) for n in ours_seed],
            "baseline": [parse_cpu_time("seed_ns=%s mixed20_ns=2000.00 sink=1" % n)
                         for n in base_seed],
        }
        return cpu_ratios(samples, "/tmp/baseline.jar")

    def encoder_floor(self, compared, label):
        results = {"encoder": {"seed_rows_per_s": 2e6, "mixed20_rows_per_s": 4e5,
                               "cpu_compare": compared}}
        [check] = [c for c in floors(results)
                   if c["floor"] == "encoder CPU per %s <= 1.05x baseline's" % label]
        return check

    def test_the_ratio_is_the_median_of_each_rounds_own_ratio(self):
        # Round 2 was disturbed for both builds: its ratio stays near 1, and one outlier of
        # either side does not move the median.
        compared = self.compared([360, 720, 370], [350, 700, 300])
        self.assertAlmostEqual(compared["seed_ns"]["ours"], 370)
        self.assertAlmostEqual(compared["seed_ns"]["baseline"], 350)
        self.assertAlmostEqual(compared["seed_ns"]["ratio"], 720 / 700)
        self.assertAlmostEqual(compared["mixed20_ns"]["ratio"], 1.0)

    def test_more_than_five_percent_more_cpu_fails(self):
        self.assertTrue(self.encoder_floor(self.compared([360], [350]), "seed row")["pass"])
        self.assertFalse(self.encoder_floor(self.compared([370], [350]), "seed row")["pass"])
        self.assertTrue(self.encoder_floor(self.compared([370], [350]), "20-column row")["pass"])


class BreakdownTest(unittest.TestCase):
    def test_the_phases_per_request_from_two_readings_of_the_sums(self):
        before = {"timed": 10, "parse": 1e6, "batch_wait": 0, "write": 5e6, "answer": 0}
        # 4 requests more: 0.1 ms parse, 0.5 ms in the batch, 3 ms writing, 0.05 ms answering
        after = {"timed": 14, "parse": 1.4e6, "batch_wait": 2e6, "write": 17e6, "answer": 0.2e6}
        split = breakdown(before, after, clickhouse_ms=2.0, mean_ms=4.0)
        self.assertEqual({k: round(v, 6) for k, v in split.items()},
                         {"parse": 0.1, "batch_wait": 0.5, "wire": 1.0, "clickhouse": 2.0,
                          "answer": 0.05, "outside": 0.35, "requests_timed": 4})

    def test_no_breakdown_without_a_timed_request(self):
        same = {"timed": 3, "parse": 1, "batch_wait": 1, "write": 1, "answer": 1}
        self.assertIsNone(breakdown(same, same, 1.0, 2.0))
        self.assertIsNone(breakdown(None, same, 1.0, 2.0))


class ClusterReportTest(unittest.TestCase):
    def setUp(self):
        self.results = json.loads(read(CLUSTER_RUN + ".json"))

    def test_the_kept_rows_are_the_least_disturbed_rounds(self):
        self.assertEqual(cluster.kept_rows(self.results["samples"]), self.results["rows"])

    def test_ratios_pair_the_targets_of_one_round(self):
        self.assertEqual(cluster.paired_ratios(self.results["samples"]), self.results["ratios"])
        first = cluster.paired_ratios(self.results["samples"])[0]
        self.assertEqual((first["concurrency"], first["round"]), (64, 1))
        self.assertAlmostEqual(first["cluster_over_single"], 0.63, places=2)

    def test_the_table_is_the_one_the_run_printed(self):
        printed = read(CLUSTER_RUN + ".txt")
        table = cluster.render(self.results["rows"], self.results["ratios"])
        self.assertIn("\n\n" + table, printed)
        self.assertEqual(len(table.splitlines()), 2 + 4 + 1 + 6)


class PullPartTest(unittest.TestCase):
    PULL = {"rate": 200, "duration": 10, "rows": [
        {"target": "push", "offered_per_s": 200, "published": 2000, "stored": 2000,
         "msgs_per_s": 198.4, "p50_ms": 31.0, "p99_ms": 88.5, "service_cpu_us_per_msg": 412.3},
        {"target": "pull", "offered_per_s": 200, "published": 2000, "stored": 1999,
         "msgs_per_s": 197.9, "p50_ms": 54.2, "p99_ms": 120.0, "service_cpu_us_per_msg": 250.0}]}

    def test_the_offered_load_is_the_rate_spread_evenly_over_the_ticks(self):
        self.assertEqual(schedule(200, 1.0), [20] * 10)
        uneven = schedule(15, 2.0)
        self.assertEqual(sum(uneven), 30)
        self.assertEqual(len(uneven), 20)
        self.assertEqual(sorted(set(uneven)), [1, 2])

    def test_the_text_report_has_a_line_per_mode(self):
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            print_pull(self.PULL)
        lines = printed.getvalue().splitlines()
        self.assertIn("200 msg/s offered", lines[1])
        self.assertEqual(lines[3].split(), ["push", "198", "31.0", "88.5", "412", "2000/2000"])
        self.assertEqual(lines[4].split(), ["pull", "198", "54.2", "120.0", "250", "1999/2000"])

    def test_the_markdown_table_has_a_row_per_mode(self):
        results = json.loads(read(os.path.join(RUNS, "2026-12-02", "results-2026-12-02.json")))
        results["pull"] = self.PULL
        rows = [line for line in render_markdown(results).splitlines()
                if line.startswith("| pull |") or line.startswith("| push |")]
        self.assertEqual(rows, ["| push | 200 | 198 | 31.0 | 88.5 | 412 | 2000/2000 |",
                                "| pull | 200 | 198 | 54.2 | 120.0 | 250 | 1999/2000 |"])


class NoContent(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


class NoContentServer(http.server.ThreadingHTTPServer):
    # Room for every connection wrk opens at once: with the default backlog of 5, the kernel
    # drops some of the first connections' SYNs and they connect a second late.
    request_queue_size = 64

    def handle_error(self, request, client_address):
        pass  # wrk closes its connections at the end without waiting for the last answers


@unittest.skipUnless(shutil.which("wrk"), "wrk is not installed")
class WrkPacingTest(unittest.TestCase):
    def setUp(self):
        self.server = NoContentServer(("127.0.0.1", 0), NoContent)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.port = self.server.server_address[1]

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()

    def test_a_paced_run_offers_the_rate_and_no_more(self):
        # A server that answers at once takes thousands a second from these connections.
        for connections, rate in ((16, 200), (64, 1000)):
            with self.subTest(connections=connections, rate=rate):
                result = wrk(self.port, connections, 2, rate=rate)
                self.assertEqual(result["non_2xx"], 0)
                per_second = result["requests"] / (result["duration_us"] / 1e6)
                self.assertGreater(per_second, 0.9 * rate)
                self.assertLess(per_second, 1.1 * rate)

    def test_a_rate_that_is_not_a_positive_number_stops_wrk(self):
        with self.assertRaises(subprocess.CalledProcessError) as stopped:
            wrk(self.port, 2, 1, script_args=("rate=-5",))
        self.assertIn("rate must be a positive number", stopped.exception.stderr)


class WrkOutputTest(unittest.TestCase):
    SUMMARY = ("Running 10s test @ http://127.0.0.1:18711/\n"
               "  2 threads and 64 connections\n"
               "  123 requests in 10.00s, 1.2KB read\n"
               "  Non-2xx or 3xx responses: 7\n"
               'WRKJSON {"requests":123,"duration_us":10000123,"p50_us":5100,"p99_us":9800}\n')

    def test_the_json_line_and_the_non_2xx_count(self):
        self.assertEqual(parse_wrk_output(self.SUMMARY), {
            "requests": 123, "duration_us": 10000123, "p50_us": 5100, "p99_us": 9800,
            "non_2xx": 7})

    def test_no_non_2xx_line_is_zero(self):
        out = self.SUMMARY.replace("  Non-2xx or 3xx responses: 7\n", "")
        self.assertEqual(parse_wrk_output(out)["non_2xx"], 0)

    def test_no_json_line_is_an_error_that_shows_the_output(self):
        with self.assertRaisesRegex(RuntimeError, "2 threads and 64 connections"):
            parse_wrk_output(self.SUMMARY.split("WRKJSON")[0])


class ServerCommandTest(unittest.TestCase):
    def test_the_peers_start_with_their_whole_heap_and_ours_runs_as_shipped(self):
        ours = server_command("ours")
        self.assertEqual(ours[ours.index(IMAGE_JAVA) + 1:ours.index("-jar")], SERVICE_JVM)
        for peer in ("bare", "naive", "async"):
            command = server_command(peer)
            self.assertEqual(command[command.index(IMAGE_JAVA) + 1:command.index("-cp")],
                             SERVICE_JVM + ["-XX:InitialRAMPercentage=50"], peer)


class JarHashTest(unittest.TestCase):
    def test_a_jar_is_named_by_its_sha256_and_a_missing_one_by_none(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.jar")
            with open(path, "wb") as f:
                f.write(b"abc")
            # SHA-256 of "abc" (FIPS 180-2's example)
            self.assertEqual("ba7816bf8f01cfea", jar_sha256(path))
            self.assertIsNone(jar_sha256(os.path.join(d, "missing.jar")))


@unittest.skipIf(shutil.which("git") is None, "no git")
class GitCommitTest(unittest.TestCase):
    # git as in a fresh clone: no user or system configuration, hooks or GIT_* variables
    ENV = dict({k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
               GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")

    def git(self, repo, *args):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                              cwd=repo, env=self.ENV, check=True, capture_output=True,
                              text=True).stdout.strip()

    def write(self, path, text):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def test_a_changed_or_new_file_outside_docs_marks_the_commit_dirty(self):
        with tempfile.TemporaryDirectory() as d, unittest.mock.patch.dict(os.environ, self.ENV,
                                                                          clear=True):
            self.git(d, "init", "-q")
            self.write(os.path.join(d, "f"), "a")
            self.git(d, "add", "f")
            self.git(d, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "one")
            head = self.git(d, "rev-parse", "--short", "HEAD")
            self.write(os.path.join(d, "docs", "perf", "runs", "new.json"), "{}")
            self.assertEqual(head, git_commit(d))
            self.write(os.path.join(d, "new"), "x")
            self.assertEqual(head + "-dirty", git_commit(d))
            os.remove(os.path.join(d, "new"))
            self.write(os.path.join(d, "f"), "b")
            self.assertEqual(head + "-dirty", git_commit(d))

    def test_a_tree_that_is_no_checkout_has_no_commit(self):
        with tempfile.TemporaryDirectory() as d, unittest.mock.patch.dict(
                os.environ, dict(self.ENV, GIT_CEILING_DIRECTORIES=os.path.dirname(d)),
                clear=True):
            self.assertIsNone(git_commit(d))


if __name__ == "__main__":
    unittest.main()
