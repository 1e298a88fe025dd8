"""The suite's own ClickHouse: start, stop, statements over HTTP, what query_log says."""

import os
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

from .settings import CH_DIR, CH_PORT, CH_URL, REPO, SEED_TABLE_COLUMNS


def ch(sql, body=None, params=None, timeout=120, base=None):
    query = {"query": sql} if body is not None else {}
    if params:
        query.update(params)
    url = (base or CH_URL) + "/?" + urllib.parse.urlencode(query)
    data = body if body is not None else sql.encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=timeout) as r:
        return r.read().decode()


def ch_row(sql):
    return ch(sql).strip().split("\t")


def start_clickhouse():
    env = dict(os.environ, CLICKHOUSE_LOCAL_PORT=str(CH_PORT), CLICKHOUSE_LOCAL_DIR=CH_DIR)
    script = os.path.join(REPO, "scripts", "clickhouse-local")
    # A fresh server for every run: no parts, merges or logs from an earlier run.
    subprocess.run([script, "stop"], env=env, check=False)
    shutil.rmtree(os.path.join(CH_DIR, "data"), ignore_errors=True)
    subprocess.run([script, "start"], env=env, check=True, stdout=subprocess.DEVNULL)
    pid = int(open(os.path.join(CH_DIR, "server.pid")).read().strip())
    ch("CREATE DATABASE IF NOT EXISTS bench")
    for table in ["push_ours", "push_naive", "push_async", "push_direct", "ceiling", "backfill", "beam",
                  "coldstart"]:
        ch(
            "CREATE TABLE IF NOT EXISTS bench.%s %s ENGINE = MergeTree ORDER BY event_time"
            % (table, SEED_TABLE_COLUMNS)
        )
    return pid


def stop_clickhouse():
    env = dict(os.environ, CLICKHOUSE_LOCAL_PORT=str(CH_PORT), CLICKHOUSE_LOCAL_DIR=CH_DIR)
    subprocess.run([os.path.join(REPO, "scripts", "clickhouse-local"), "stop"], env=env)
    # Its data is on tmpfs by default: left behind, a run's parts and logs (gigabytes) hold memory
    # that the next run, or anything else on the machine, needs.
    shutil.rmtree(os.path.join(CH_DIR, "data"), ignore_errors=True)


def ch_now():
    return ch("SELECT toString(now64(6))").strip()


def insert_stats(table, t0, t1):
    """INSERTs that finished in [t0, t1] into bench.<table>, from system.query_log."""
    ch("SYSTEM FLUSH LOGS")
    row = ch_row(
        "SELECT countIf(type = 'QueryFinish'), countIf(type != 'QueryFinish'),"
        " sumIf(written_rows, type = 'QueryFinish'),"
        " sumIf(ProfileEvents['MergeTreeDataWriterBlocks'], type = 'QueryFinish'),"
        " sumIf(ProfileEvents['UserTimeMicroseconds'] + ProfileEvents['SystemTimeMicroseconds'],"
        " type = 'QueryFinish'),"
        " avgIf(query_duration_ms, type = 'QueryFinish'),"
        " quantileIf(0.99)(query_duration_ms, type = 'QueryFinish')"
        " FROM system.query_log WHERE query_kind = 'Insert' AND type != 'QueryStart'"
        " AND has(tables, 'bench.%s')"
        " AND event_time_microseconds BETWEEN toDateTime64('%s', 6) AND toDateTime64('%s', 6)"
        % (table, t0, t1)
    )
    return {
        "inserts": int(row[0]),
        "failed_inserts": int(row[1]),
        "inserted_rows": int(row[2]),
        "parts_written": int(row[3]),
        "insert_query_cpu_s": int(row[4]) / 1e6,
        "insert_ms_mean": float(row[5]) if row[5] not in ("nan", "") else None,
        "insert_ms_p99": float(row[6]) if row[6] not in ("nan", "") else None,
    }


def truncate(table):
    """Empties the table. With SYNC it returns once the parts are gone: after a plain TRUNCATE
    hundreds of a per-message peer's parts could still be listed seconds later, removed at 10-20% of a
    core under whichever point ran next."""
    try:
        ch("TRUNCATE TABLE bench.%s SYNC" % table)
    except urllib.error.HTTPError:
        pass  # an ENGINE = Null table has nothing to truncate


def settle(cpu_seconds, idle_cores=0.1, window_s=0.5, limit_s=10.0, sleep=time.sleep,
           clock=time.monotonic):
    """Waits until the process whose CPU seconds `cpu_seconds()` reads used under `idle_cores` of
    a core over a window of `window_s` (as long as the window really lasted), or until `limit_s`
    passed. Returns (seconds waited, settled)."""
    start = clock()
    while clock() - start < limit_s:
        cpu0, t0 = cpu_seconds(), clock()
        sleep(window_s)
        cpu1, t1 = cpu_seconds(), clock()
        if t1 > t0 and (cpu1 - cpu0) / (t1 - t0) < idle_cores:
            return t1 - start, True
    return clock() - start, False


def active_parts(table):
    return int(
        ch("SELECT count() FROM system.parts WHERE database = 'bench' AND table = '%s' AND active"
           % table).strip()
    )


# ---------------------------------------------------------------------------------------------
# Processes


def async_insert_queue():
    """True when the server queues async_insert=1 INSERTs (ClickHouse's server does); chDB's
    clickhouse-local engine has no such queue and runs them as ordinary synchronous INSERTs."""
    ch("CREATE TABLE IF NOT EXISTS bench.async_probe (n UInt8) ENGINE = MergeTree ORDER BY n")
    ch("INSERT INTO bench.async_probe FORMAT TSV", body=b"1\n",
       params={"async_insert": "1", "wait_for_async_insert": "1"})
    queued = ch("SELECT sum(value) FROM system.events WHERE event = 'AsyncInsertQuery'").strip()
    ch("DROP TABLE bench.async_probe")
    return int(queued or 0) > 0
