"""Part encoder: the JMH EncoderBenchmark, and with --encoder-baseline the CPU time per row of
this build beside another build's (EncoderCpuTime, rounds in turns)."""

import json
import os
import shutil
import statistics
import subprocess

from .settings import BENCHMARKS_JAR, IMAGE_JAVA, REPO, WORK, log

CPU_TIME_CLASS = "dev.pubsubclickhouse.benchmarks.EncoderCpuTime"
CPU_TIME_SOURCE = "benchmarks/src/main/java/dev/pubsubclickhouse/benchmarks/EncoderCpuTime.java"


def run_encoder(args):
    log("encoder (JMH)")
    out = os.path.join(WORK, "jmh.json")
    timing = ["-wi", "2", "-w", "1", "-i", "3", "-r", "1"] if args.quick else []
    subprocess.run(
        ["java", "-jar", BENCHMARKS_JAR, "EncoderBenchmark",
         "-rf", "json", "-rff", out] + timing,
        cwd=REPO, check=True, stdout=subprocess.DEVNULL,
    )
    scores = {}
    for entry in json.load(open(out)):
        name = entry["benchmark"].rsplit(".", 1)[1]
        scores[name] = {
            "rows_per_s": entry["primaryMetric"]["score"],
            "error": entry["primaryMetric"]["scoreError"],
        }
    result = {
        "seed_rows_per_s": scores["seedRow"]["rows_per_s"],
        "mixed20_rows_per_s": scores["mixedRow20Columns"]["rows_per_s"],
        "raw": scores,
        "threads": 1,
    }
    if getattr(args, "encoder_baseline", None):
        result["cpu_compare"] = compare_cpu_time(args.encoder_baseline, 3 if args.quick else 5)
    return result


def compare_cpu_time(baseline_jar, rounds):
    """CPU ns per row of this build and of baseline_jar's, `rounds` each, in turns (the order
    swapped every round); EncoderCpuTime is compiled against the baseline's jar, so both run the
    same measuring code."""
    baseline_jar = os.path.abspath(baseline_jar)
    classes = os.path.join(WORK, "encoder-baseline-classes")
    shutil.rmtree(classes, ignore_errors=True)
    os.makedirs(classes)
    subprocess.run(["javac", "--release", "17", "-cp", baseline_jar, "-d", classes,
                    os.path.join(REPO, CPU_TIME_SOURCE)], check=True)
    class_paths = {"ours": BENCHMARKS_JAR,
                   "baseline": classes + os.pathsep + baseline_jar}
    samples = {"ours": [], "baseline": []}
    for r in range(rounds):
        log("encoder CPU time, round %d of %d" % (r + 1, rounds))
        for name in (["ours", "baseline"] if r % 2 == 0 else ["baseline", "ours"]):
            out = subprocess.run(
                [IMAGE_JAVA, "-XX:+UseSerialGC", "-cp", class_paths[name], CPU_TIME_CLASS,
                 "2000000"], check=True, capture_output=True, text=True).stdout
            samples[name].append(parse_cpu_time(out))
    return cpu_ratios(samples, baseline_jar)


def parse_cpu_time(line):
    """EncoderCpuTime's line: {"seed_ns": ..., "mixed20_ns": ...}."""
    fields = dict(part.split("=", 1) for part in line.split())
    return {"seed_ns": float(fields["seed_ns"]), "mixed20_ns": float(fields["mixed20_ns"])}


def cpu_ratios(samples, baseline):
    """Medians over the rounds, and the ratio ours / baseline (above 1: ours spends more CPU) as
    the median of each round's own ratio: the two runs of a round are next to each other, so a
    round disturbed by other work on the machine moves both."""
    result = {"baseline": baseline, "samples": samples}
    for key in ("seed_ns", "mixed20_ns"):
        pairs = zip(samples["ours"], samples["baseline"])
        result[key] = {
            "ours": statistics.median(s[key] for s in samples["ours"]),
            "baseline": statistics.median(s[key] for s in samples["baseline"]),
            "ratio": statistics.median(o[key] / b[key] for o, b in pairs),
        }
    return result
