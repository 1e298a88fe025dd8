"""Part backfill: BigQuery rows into ClickHouse with 1, 2, 4 tasks, read through REST
(tabledata.list pages) and through the Storage Read API (Avro streams), beside Beam's
ClickHouseIO."""

import datetime
import json
import os
import subprocess
import time

from .clickhouse import ch, ch_row
from .processes import jar
from .settings import (BACKFILL_JVM, BENCHMARKS_JAR, CH_PORT, CH_URL, STORAGE_SERVER_PORT,
                       log)


# The seed row as every server here serves it, as ClickHouse shows it back.
SEED_ROW = "('2025-12-30 12:00:00', 'api', 'INFO', 'PRE-DATAFLOW TEST')"


def start_server(command, ready):
    """A server in its own JVM; waits for its first line, which must start with `ready`."""
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, start_new_session=True)
    line = server.stdout.readline()
    if not line.startswith(ready):
        server.terminate()
        raise RuntimeError("%s did not start: %s" % (command[-1], line))
    return server, line.split()


def run_tasks(label, tasks, total, page_rows, env, flags):
    """One execution of `tasks` backfill-job.jar processes into bench.backfill: rows/s from the
    first task's "reading" to the last task's "finished", each task's own rows/s, and what landed
    (count and values checked against the seed row; a mismatch fails the run)."""
    ch("TRUNCATE TABLE bench.backfill")
    processes = []
    for index in range(tasks):
        task_env = dict(os.environ, CLICKHOUSE_URL=CH_URL, CLICKHOUSE_DATABASE="bench",
                        CLOUD_RUN_TASK_INDEX=str(index), CLOUD_RUN_TASK_COUNT=str(tasks), **env)
        processes.append(subprocess.Popen(
            ["java"] + BACKFILL_JVM + ["-jar", jar("backfill-job/target/backfill-job.jar"),
             "--inputTableSpec=bench:ds.seed", "--clickHouseTable=backfill",
             "--pageRows=%d" % page_rows, "--outputDeadletterTable=none",
             "--progressIntervalSeconds=3600"] + flags,
            env=task_env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
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
    count, not_seed, checksum = ch_row(
        "SELECT count(), countIf((toString(event_time), service, level, message) != %s),"
        " sum(cityHash64(toString(event_time), service, level, message)) FROM bench.backfill"
        % SEED_ROW)
    count, not_seed = int(count), int(not_seed)
    if count != total or not_seed:
        raise RuntimeError("%s, %d task(s): %d rows of %d landed, %d of them not the seed row"
                           % (label, tasks, count, total, not_seed))
    log("  %-7s %d task(s): %.0f rows/s (%d rows in %.2f s), per task %s" % (
        label, tasks, count / seconds, count, seconds, ", ".join(str(r) for r in per_task)))
    return {"rows_per_s": count / seconds, "seconds": seconds, "rows_in_table": count,
            "per_task_rows_per_s": per_task, "rows_not_seed": not_seed,
            "value_checksum": checksum}


def run_storage(tasks, total, page_rows, urls):
    """The Storage Read API's run: a read session with one stream per task (the job asks for
    tasks x STREAMS_PER_TASK = 1), which the tasks pin in the checkpoint table's _plans beside
    it. A checkpoint table of its own per run: an unchanged table found in an earlier run's
    checkpoints would rightly not be read again."""
    checkpoints = "backfill_storage_%d" % tasks
    drop_checkpoints(checkpoints)
    try:
        return run_tasks(
            "Storage", tasks, total, page_rows,
            {"BIGQUERY_ENDPOINT": urls["rest"], "PAGE_READER": "storage",
             "BIGQUERY_STORAGE_ENDPOINT": urls["storage"],
             "CLOUD_RUN_EXECUTION": "bench-storage-%d-%d" % (tasks, time.time())},
            ["--checkpointTable=" + checkpoints])
    finally:
        drop_checkpoints(checkpoints)


def drop_checkpoints(table):
    for name in (table, table + "_plans"):
        ch("DROP TABLE IF EXISTS bench.%s" % name)


def run_backfill(args):
    log("backfill: locally served BigQuery rows into ClickHouse, REST and Storage Read API")
    total = 2_000_000 if args.quick else 4_000_000
    page_rows = 50_000
    # "tasks": REST. Both readers read LocalBigQuery --seed (test-support's BigQuery stand-in, in
    # the benchmarks jar): tabledata.list pages and Avro streams of the seed row, each page size
    # and block size encoded once.
    results = {"total_rows": total, "page_rows": page_rows, "jvm": BACKFILL_JVM, "tasks": {}}
    storage = {"server": "LocalBigQuery --seed", "streams_per_task": 1,
               "checkpoint_table": "backfill_storage_<tasks>, new for each run (REST: none)",
               "tasks": {}}
    servers = []
    try:
        local, words = start_server(
            ["java", "-cp", BENCHMARKS_JAR,
             "dev.pubsubclickhouse.testing.bigquery.LocalBigQuery", "--table=bench:ds.seed",
             "--rows=%d" % total, "--seed", "--port=%d" % STORAGE_SERVER_PORT,
             "--storagePort=%d" % (STORAGE_SERVER_PORT + 1)], "LOCAL_BIGQUERY")
        servers.append(local)
        urls = dict(word.split("=", 1) for word in words[1:])
        # The readers in turn at each task count, so that whatever else runs on the machine
        # weighs on both alike.
        for tasks in [1, 2, 4]:
            results["tasks"][str(tasks)] = run_tasks(
                "REST", tasks, total, page_rows,
                {"BIGQUERY_ENDPOINT": urls["rest"], "PAGE_READER": "rest"},
                ["--checkpointTable=none"])
            if "error" not in storage:
                try:
                    storage["tasks"][str(tasks)] = run_storage(tasks, total, page_rows, urls)
                except Exception as e:  # keep REST's numbers and Beam's
                    log("  Storage Read API failed: %s" % e)
                    storage["error"] = str(e)
    finally:
        for server in servers:
            server.terminate()
            server.wait()
    results["storage"] = storage
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

