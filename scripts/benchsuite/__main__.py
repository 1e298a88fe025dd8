"""The benchmark suite of docs/performance.md; run it through scripts/bench.

Two halves with a results file between them: measuring (measure.py and the parts it runs) writes
docs/perf/runs/<date>/results-<date>.json with every sample; the report (report.py: text and markdown, with
the cost model and the floors computed from the file) and the plots (plots.py) read it. So
`scripts/bench --report FILE.json` reports an earlier run again, with today's report code.
`scripts/bench cluster ...` is the push-into-a-cluster run of cluster.py, measured on its own.
"""

import argparse
import json
import os
import shutil
import sys

from . import cluster
from .measure import PARTS, measure, write_results
from .plots import write_plots
from .report import derived, render_markdown, render_report, write_csv
from .settings import DEFAULT_VARIANTS, REPO, WORK


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="scripts/bench",
        description="Benchmark suite (docs/performance.md). Side by side, one run.",
        epilog="scripts/bench cluster --help: the push service into a 2-shard cluster beside a"
               " single server, a run of its own.")
    parser.add_argument("--quick", action="store_true",
                        help="short runs (3 s warm-up, 5 s measured; smaller backfill and fleet;"
                             " fewer repeats)")
    parser.add_argument("--only", default=",".join(PARTS),
                        help="comma-separated parts to run: %s (default: all)" % ", ".join(PARTS))
    parser.add_argument("--concurrency", default="1,4,16,64,256,512")
    parser.add_argument("--duration", type=int, default=None, help="measured seconds per point")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up seconds per point")
    parser.add_argument("--rounds", type=int, default=None,
                        help="measure every push point this many times, interleaved (rotating"
                             " the order); the table shows each figure's median over the rounds"
                             " and its spread (default 5, quick 3)")
    parser.add_argument("--fleet-sizes", default="1,4,16",
                        help="service processes in each fleet simulation")
    parser.add_argument("--fleet-concurrency", type=int, default=256,
                        help="requests in flight over the whole fleet")
    parser.add_argument("--fleet-duration", type=int, default=None,
                        help="measured seconds per fleet (default 20, quick 8)")
    parser.add_argument("--fleet-budget", type=int, default=40,
                        help="TABLE_MAX_INSERTS_PER_SECOND of the fleets with flow control")
    parser.add_argument("--fleet-cpus", type=float, default=1.5,
                        help="CPU cores the whole fleet's instances may use together")
    parser.add_argument("--shared-cpus", action="store_true",
                        help="push part: every target shares every CPU with wrk and ClickHouse;"
                             " by default each runs as the service is deployed, on one CPU of its"
                             " own (Cloud Run's default 1 vCPU), wrk and ClickHouse on the others")
    parser.add_argument("--pull-rate", type=int, default=200,
                        help="pull part: messages/s published to the emulator for the push and"
                             " the pull subscription alike")
    parser.add_argument("--paced-rate", type=int, default=8000,
                        help="push part, when --concurrency has 256: ours and the bare handler"
                             " are also both offered this many msg/s at c=256, under either"
                             " one's ceiling, and their CPU per message compared there (0: not"
                             " measured)")
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--variant", action="append", default=[],
                        help="an extra push target measured beside ours: NAME:KEY=VALUE,... with"
                             " service environment variables (e.g. MAX_CONCURRENT_INSERTS=4), or"
                             " jvm=FLAGS (space-separated), java=PATH, jar=PATH, engine=ENGINE")
    parser.add_argument("--no-variants", action="store_true",
                        help="measure only ours and its peers (no default variants)")
    parser.add_argument("--patch", action="append", default=[],
                        help="a patch of the main code: built"
                             " in a scratch worktree and measured as the variant 'patched'")
    parser.add_argument("--encoder-baseline", metavar="BENCHMARKS_JAR",
                        help="encoder part: also the CPU time per row of this build beside the"
                             " benchmarks.jar of another build (e.g. one built at an earlier"
                             " commit), medians of rounds in turns; floor: at most 1.05x")
    parser.add_argument("--out", help="directory of the results (default docs/perf/runs/<date>)")
    parser.add_argument("--keep-clickhouse", action="store_true",
                        help="leave the benchmark ClickHouse running afterwards")
    parser.add_argument("--report", metavar="RESULTS_JSON",
                        help="report an earlier run's results file again (and rewrite its .txt,"
                             " .md, .csv and plots beside it) instead of measuring")
    args = parser.parse_args(argv)
    args.concurrency = [int(c) for c in args.concurrency.split(",")]
    args.fleet_sizes = [int(n) for n in args.fleet_sizes.split(",")]
    if not args.variant and not args.patch and not args.no_variants:
        args.variant = list(DEFAULT_VARIANTS)
    args.duration = args.duration or (5 if args.quick else 10)
    args.warmup = args.warmup or (3 if args.quick else 5)
    args.rounds = args.rounds or (3 if args.quick else 5)
    args.fleet_duration = args.fleet_duration or (8 if args.quick else 20)
    if args.paced_rate < 0:
        parser.error("--paced-rate must be a number of messages a second, or 0")
    args.parts = set(args.only.split(","))
    unknown = args.parts - set(PARTS)
    if unknown:
        parser.error("unknown part(s): %s" % ", ".join(sorted(unknown)))
    return args


def report(results, json_path):
    """Prints the report and writes it, the tables, the CSV and the plots beside the results."""
    directory = os.path.dirname(os.path.abspath(json_path))
    stem = os.path.splitext(json_path)[0]
    text = render_report(results)
    written = [json_path]
    for suffix, content in [(".txt", text), (".md", render_markdown(results))]:
        with open(stem + suffix, "w") as f:
            f.write(content)
        written.append(stem + suffix)
    if results.get("push"):
        write_csv(results, stem + ".csv")
        written.append(stem + ".csv")
    written += write_plots(results, directory)
    print(text, end="")
    print("Wrote " + ", ".join(os.path.relpath(p, REPO) for p in written))
    return derived(results)


def main(argv):
    if argv[:1] == ["cluster"]:
        cluster.main(argv[1:])
        return
    args = parse_args(argv)
    if args.report:
        with open(args.report) as f:
            report(json.load(f), args.report)
        return
    for tool in ["java", "mvn", "wrk", "curl", "taskset"]:
        if not shutil.which(tool):
            sys.exit("bench: %s is required" % tool)
    os.makedirs(WORK, exist_ok=True)
    results = measure(args)
    out = args.out or os.path.join(REPO, "docs", "perf", "runs", results["date"][:10])
    os.makedirs(out, exist_ok=True)
    json_path = write_results(results, out)
    report(results, json_path)
    print("Suite took %.0f s" % results["suite_seconds"])


if __name__ == "__main__":
    main(sys.argv[1:])
