"""Where the suite runs things and with what: ports, directories, JVM flags, the targets."""

import os
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CH_PORT = int(os.environ.get("BENCH_CLICKHOUSE_PORT", "18700"))
# tmpfs by default: on this VM's ext4 disk (mounted with discard) every part ClickHouse writes
# costs 4-20 ms of kernel time, growing during a run, which made results depend on the order the
# targets ran in. The "insertcost" part measures that side by side (tmpfs vs disk) in every run.
CH_DIR = os.environ.get(
    "BENCH_CLICKHOUSE_DIR",
    "/dev/shm/bench-clickhouse" if os.path.isdir("/dev/shm") else "/tmp/bench-clickhouse")
CH_DISK_DIR = os.environ.get("BENCH_CLICKHOUSE_DISK_DIR", "/tmp/bench-clickhouse-disk")
CH_DISK_PORT = CH_PORT + 1
CH_URL = "http://127.0.0.1:%d" % CH_PORT
# The jars the suite runs, as the build leaves them
FUNCTION_JAR = os.path.join(REPO, "function", "target", "function.jar")
BENCHMARKS_JAR = os.path.join(REPO, "benchmarks", "target", "benchmarks.jar")
WORK = os.environ.get("BENCH_WORK_DIR", "/tmp/bench-work")
# Every port the suite listens on is BENCH_PORT_BASE plus an offset, so that two runs on one
# machine (other worktrees) can be kept apart.
PORT_BASE = int(os.environ.get("BENCH_PORT_BASE", "18700"))
PORTS = {"ours": PORT_BASE + 11, "bare": PORT_BASE + 12, "naive": PORT_BASE + 13,
         "async": PORT_BASE + 14}
COLD_START_PORT = PORT_BASE + 21
TRAINING_PORT = PORT_BASE + 20
VARIANT_PORT = PORT_BASE + 31  # and up, one per variant
FLEET_PORT = PORT_BASE + 40  # and up, one per instance
STORAGE_SERVER_PORT = PORT_BASE + 91  # LocalBigQuery: REST here, the Storage Read API at +92
# The push targets: ours, the stock Functions Framework handler that only answers (bare), the
# seed tutorial's one synchronous INSERT per message (naive), and the same with ClickHouse's own
# asynchronous inserts (async: async_insert=1, wait_for_async_insert=1), what a ClickHouse-savvy
# user would reach for instead of this service. The direct peer is no server: wrk posts the same
# rows straight to ClickHouse, one INSERT each (scripts/bench-direct.lua), the floor under any
# handler.
TABLES = {"ours": "push_ours", "naive": "push_naive", "async": "push_async", "bare": None,
          "direct": "push_direct"}
JDK25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"
# The function image runs eclipse-temurin:25-jre; where Temurin 25 is missing, JDK 17 (whose
# requests then run on platform threads, see function/PushServer.java).
IMAGE_JAVA = JDK25 if os.path.exists(JDK25) else "java"

# What production runs: the function image's flags (function/pom.xml, Jib) in the default
# 512 MiB container. -XX:MaxRAM=512m makes the JVM size itself as in that container: a 256 MiB
# heap (50%) and, unlike a bare -Xmx256m on this 24 GB machine, an 8 MiB initial heap (1/64), so
# the heap is committed only as it is used, as it would be there; the serial collector is what
# the JVM picks in a container with under 2 CPUs or 1792 MiB.
SERVICE_JVM = ["-XX:MaxRAM=512m", "-XX:MaxRAMPercentage=50", "-XX:+UseSerialGC"]
# In the push part the peers (the bare, naive and async handlers) are ceilings and baselines: they
# start with their whole heap, so that a heap still growing does not slow them in any round. From
# the 8 MiB start the serial collector grows a heap only at a full collection, which the bare
# handler, promoting almost nothing, reaches minutes into a run; until then it collects its young
# generation about 30 times as often and carries far fewer messages a second
# (docs/performance.md, Method). Ours started the same way showed no difference six paired rounds
# could detect, so ours runs as shipped. (Cold start times the bare handler with SERVICE_JVM: a
# start, not a steady state.)
PEER_JVM = SERVICE_JVM + ["-XX:InitialRAMPercentage=50"]
BACKFILL_JVM = ["-Xmx1536m"]  # 75% of the job's default 2 GiB

SEED_TABLE_COLUMNS = "(event_time DateTime, service String, level String, message String)"

# Measured beside ours by default, to show what limits it.
DEFAULT_VARIANTS = [
    "null:engine=Null",  # ours into an ENGINE = Null table: ClickHouse parses, writes no part
    "jdk17:java=java",  # ours on JDK 17: requests wait on platform threads
]


def log(message):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), message), flush=True)
