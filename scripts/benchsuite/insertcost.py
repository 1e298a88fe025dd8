"""Part insertcost: ClickHouse's CPU per INSERT with its data on tmpfs and on disk."""

import os
import shutil
import subprocess
import time
import urllib.request

from .clickhouse import ch
from .settings import (CH_DIR, CH_DISK_DIR, CH_DISK_PORT, CH_URL, REPO, SEED_TABLE_COLUMNS,
                       log)


def run_insert_cost(args):
    """The same 50-row INSERT into a MergeTree table, alternately on a server whose data is on
    tmpfs (the suite's) and on one whose data is on this machine's disk: ClickHouse's own CPU per
    INSERT (query_log), side by side."""
    log("insert cost: one 50-row INSERT, ClickHouse data on tmpfs vs on disk")
    env = dict(os.environ, CLICKHOUSE_LOCAL_PORT=str(CH_DISK_PORT), CLICKHOUSE_LOCAL_DIR=CH_DISK_DIR)
    script = os.path.join(REPO, "scripts", "clickhouse-local")
    subprocess.run([script, "stop"], env=env, check=False)
    shutil.rmtree(os.path.join(CH_DISK_DIR, "data"), ignore_errors=True)
    subprocess.run([script, "start"], env=env, check=True, stdout=subprocess.DEVNULL)
    disk = "http://127.0.0.1:%d" % CH_DISK_PORT
    try:
        body = urllib.request.urlopen(urllib.request.Request(
            CH_URL + "/", data=b"SELECT toDateTime('2025-12-30 12:00:00'), 'api', 'INFO',"
            b" 'PRE-DATAFLOW TEST' FROM numbers(50) FORMAT RowBinary")).read()
        results = {}
        for base in [CH_URL, disk]:
            ch("CREATE DATABASE IF NOT EXISTS bench", base=base)
            ch("DROP TABLE IF EXISTS bench.insert_cost", base=base)
            ch("CREATE TABLE bench.insert_cost %s ENGINE = MergeTree ORDER BY event_time"
               % SEED_TABLE_COLUMNS, base=base)
        n = 60 if args.quick else 150
        for i in range(n):
            for base in [CH_URL, disk]:
                ch("INSERT INTO bench.insert_cost FORMAT RowBinary", body=body,
                   params={"async_insert": "0", "log_comment": "insert_cost"}, base=base)
        time.sleep(1)
        for label, base in [("tmpfs", CH_URL), ("disk", disk)]:
            ch("SYSTEM FLUSH LOGS", base=base)
            row = ch("SELECT count(), avg(query_duration_ms),"
                     " avg(ProfileEvents['UserTimeMicroseconds']) / 1000,"
                     " avg(ProfileEvents['SystemTimeMicroseconds']) / 1000,"
                     " quantile(0.9)(ProfileEvents['SystemTimeMicroseconds']) / 1000"
                     " FROM system.query_log WHERE type = 'QueryFinish' AND query_kind = 'Insert'"
                     " AND log_comment = 'insert_cost'", base=base).strip().split("\t")
            results[label] = {"inserts": int(row[0]), "duration_ms": float(row[1]),
                              "user_cpu_ms": float(row[2]), "system_cpu_ms": float(row[3]),
                              "system_cpu_ms_p90": float(row[4])}
            log("  %-5s %d INSERTs: %.2f ms each, ClickHouse CPU %.2f ms user + %.2f ms system"
                % (label, int(row[0]), float(row[1]), float(row[2]), float(row[3])))
        results["tmpfs_dir"], results["disk_dir"] = CH_DIR, CH_DISK_DIR
        return results
    finally:
        subprocess.run([script, "stop"], env=env, check=False)
