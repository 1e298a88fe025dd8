"""The bench suite's report and the cluster run's table, rebuilt from the runs docs/performance.md
cites: today's code must print exactly what those runs printed, from their results files."""

import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest

from benchsuite import cluster
from benchsuite.__main__ import report
from benchsuite.processes import parse_wrk_output
from benchsuite.pull import schedule
from benchsuite.push import least_disturbed
from benchsuite.report import print_pull, render_markdown

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE_RUN = os.path.join(REPO, "docs", "perf", "runs", "2026-12-02")
SUITE_STEM = "results-2026-12-02"
SUITE_PLOTS = ["push-throughput.svg", "push-latency.svg", "fleet-parts.svg"]
CLUSTER_RUN = os.path.join(REPO, "docs", "perf", "runs", "2026-12-01", "cluster-2026-12-01")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class SuiteReportTest(unittest.TestCase):
    def test_reporting_a_run_again_writes_what_it_wrote(self):
        with tempfile.TemporaryDirectory() as tmp:
            json_path = os.path.join(tmp, SUITE_STEM + ".json")
            shutil.copy(os.path.join(SUITE_RUN, SUITE_STEM + ".json"), json_path)
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                report(json.loads(read(json_path)), json_path)
            self.assertEqual(printed.getvalue().split("\nWrote ")[0] + "\n",
                             read(os.path.join(SUITE_RUN, SUITE_STEM + ".txt")))
            written = sorted(os.listdir(tmp))
            expected = [SUITE_STEM + suffix for suffix in (".json", ".txt", ".md", ".csv")]
            self.assertEqual(written, sorted(expected + SUITE_PLOTS))
            self.assertEqual(written, sorted(os.listdir(SUITE_RUN)))
            for name in written:
                with self.subTest(file=name):
                    self.assertEqual(read(os.path.join(tmp, name)),
                                     read(os.path.join(SUITE_RUN, name)))


    def test_the_push_table_keeps_the_least_disturbed_rounds(self):
        push = json.loads(read(os.path.join(SUITE_RUN, SUITE_STEM + ".json")))["push"]
        measured = [r for r in push["rows"] if r["target"] != "ceiling"]

        def point(row):
            return row["concurrency"], row["target"]

        self.assertEqual(sorted(least_disturbed(push["samples"]), key=point),
                         sorted(measured, key=point))


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
        results = json.loads(read(os.path.join(SUITE_RUN, SUITE_STEM + ".json")))
        results["pull"] = self.PULL
        rows = [line for line in render_markdown(results).splitlines()
                if line.startswith("| pull |") or line.startswith("| push |")]
        self.assertEqual(rows, ["| push | 200 | 198 | 31.0 | 88.5 | 412 | 2000/2000 |",
                                "| pull | 200 | 198 | 54.2 | 120.0 | 250 | 1999/2000 |"])


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


if __name__ == "__main__":
    unittest.main()
