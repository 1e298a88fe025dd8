"""Part backfill: BigQuery pages into ClickHouse with 1, 2, 4 tasks, beside Beam's ClickHouseIO."""

import datetime
import json
import os
import subprocess
import time

from .clickhouse import ch
from .processes import jar
from .settings import BACKFILL_JVM, CH_PORT, CH_URL, PAGE_SERVER_PORT, log


def run_backfill(args):
    log("backfill: locally served BigQuery pages into ClickHouse")
    total = 2_000_000 if args.quick else 4_000_000
    page_rows = 50_000
    server = subprocess.Popen(
        ["java", "-cp", jar("benchmarks/target/benchmarks.jar"),
         "dev.pubsubclickhouse.benchmarks.BigQueryPageServer", str(PAGE_SERVER_PORT), str(total),
         str(page_rows)],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )
    results = {"total_rows": total, "page_rows": page_rows, "jvm": BACKFILL_JVM, "tasks": {}}
    try:
        line = server.stdout.readline()
        if not line.startswith("PAGESERVER"):
            raise RuntimeError("page server did not start: " + line)
        for tasks in [1, 2, 4]:
            ch("TRUNCATE TABLE bench.backfill")
            processes = []
            for index in range(tasks):
                env = dict(os.environ, CLICKHOUSE_URL=CH_URL, CLICKHOUSE_DATABASE="bench",
                           BIGQUERY_ENDPOINT="http://127.0.0.1:%d" % PAGE_SERVER_PORT,
                           CLOUD_RUN_TASK_INDEX=str(index), CLOUD_RUN_TASK_COUNT=str(tasks))
                processes.append(subprocess.Popen(
                    ["java"] + BACKFILL_JVM + ["-jar", jar("backfill-job/target/backfill-job.jar"),
                     "--inputTableSpec=bench:ds.seed", "--clickHouseTable=backfill",
                     "--pageRows=%d" % page_rows, "--outputDeadletterTable=none",
                     "--checkpointTable=none", "--progressIntervalSeconds=3600"],
                    env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
            starts, ends, per_task = [], [], []
            for p in processes:
                out, _ = p.communicate(timeout=600)
                if p.returncode != 0:
                    raise RuntimeError("backfill task failed:\n" + out[-2000:])
                for l in out.splitlines():
                    if not l.startswith("{"):
                        continue
                    entry = json.loads(l)
                    stamp = datetime.datetime.fromisoformat(entry["time"][:26].rstrip("Z"))
                    if entry["message"] == "reading":
                        starts.append(stamp)
                    elif entry["message"] == "backfill finished":
                        ends.append(stamp)
                        per_task.append(entry.get("rowsPerSecond"))
            seconds = (max(ends) - min(starts)).total_seconds()
            count = int(ch("SELECT count() FROM bench.backfill").strip())
            results["tasks"][str(tasks)] = {
                "rows_per_s": count / seconds, "seconds": seconds, "rows_in_table": count,
                "per_task_rows_per_s": per_task,
            }
            log("  %d task(s): %.0f rows/s (%d rows in %.2f s)" % (tasks, count / seconds, count,
                                                                   seconds))
    finally:
        server.terminate()
        server.wait()
    ch("TRUNCATE TABLE bench.backfill")
    beam_rows = 1_000_000 if args.quick else 2_000_000
    # Two successful runs, the faster kept (in Beam's favour). A failed attempt (seen with the
    # driver's default connection pool: a bundle waited 180 s for a connection) is recorded and
    # run again; at most four attempts of 300 s.
    attempts = []
    beam = None
    for attempt in range(4):
        ch("TRUNCATE TABLE bench.beam")
        started = time.monotonic()
        try:
            out = subprocess.run(
                ["java"] + BACKFILL_JVM + [
                    "-jar", jar("benchmarks-beam/target/benchmarks-beam.jar"),
                    # compress=0: clickhouse-jdbc 0.6.4 cannot read a 26.x server's compressed
                    # answers; async_insert=0 as ours and naive send it (the server's default is 1)
                    # HTTP_URL_CONNECTION: with the driver's default Apache pool the pipeline
                    # waited 180 s for a pooled connection and failed in 3 of 5 runs here
                    "jdbc:clickhouse://127.0.0.1:%d/bench?compress=0"
                    "&custom_settings=async_insert=0&http_connection_provider=HTTP_URL_CONNECTION"
                    % CH_PORT, "beam",
                    str(beam_rows)],
                capture_output=True, text=True, timeout=300,
            )
            line = [l for l in out.stdout.splitlines() if l.startswith("BEAM ")]
            causes = [l.strip() for l in out.stderr.splitlines()
                      if "Exception" in l and not l.strip().startswith("at ")]
            error = None if line else (causes[-1] if causes else "no result")[:300]
        except subprocess.TimeoutExpired:
            line, error = [], "no result after 300 s"
        written = int(ch("SELECT count() FROM bench.beam").strip())
        attempts.append({"attempt": attempt + 1, "ok": bool(line), "error": error,
                         "seconds": time.monotonic() - started, "rows_in_table": written})
        if line:
            run = json.loads(line[0][len("BEAM "):])
            run["rows_in_table"] = written
            attempts[-1]["rows_per_s"] = run["rows_per_s"]
            if beam is None or run["rows_per_s"] > beam["rows_per_s"]:
                beam = run
            if sum(1 for a in attempts if a["ok"]) == 2:
                break
            continue
        log("  Beam attempt %d failed after %.0f s (%d rows written): %s"
            % (attempt + 1, time.monotonic() - started, written, error))
    if beam is None:
        beam = {"failed": True, "rows": beam_rows, "rows_per_s": None}
    beam["attempts"] = attempts
    beam["beam_version"] = "2.71.0"
    ch("TRUNCATE TABLE bench.beam")
    results["beam_clickhouseio"] = beam
    if beam.get("rows_per_s"):
        log("  Beam ClickHouseIO (DirectRunner): %.0f rows/s" % beam["rows_per_s"])
    return results


# ---------------------------------------------------------------------------------------------
# Cost model
