"""Part encoder: the JMH EncoderBenchmark."""

import json
import os
import subprocess

from .processes import jar
from .settings import REPO, WORK, log


def run_encoder(args):
    log("encoder (JMH)")
    out = os.path.join(WORK, "jmh.json")
    timing = ["-wi", "2", "-w", "1", "-i", "3", "-r", "1"] if args.quick else []
    subprocess.run(
        ["java", "-jar", jar("benchmarks/target/benchmarks.jar"), "EncoderBenchmark",
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
    return {
        "seed_rows_per_s": scores["seedRow"]["rows_per_s"],
        "mixed20_rows_per_s": scores["mixedRow20Columns"]["rows_per_s"],
        "raw": scores,
        "threads": 1,
    }
