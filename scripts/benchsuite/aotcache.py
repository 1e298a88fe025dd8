"""Trains and checks a JDK 25 AOT cache (JEP 483/514/515) for a start command of the push service.

Shared by the image build (cloudbuild.yaml, through scripts/aot-cache) and the bench's coldstart
part; standard library only, so any image with python3 runs it.

train: runs the command with JAVA_TOOL_OPTIONS=-XX:AOTCacheOutput=PATH, waits for its first 204,
pushes a short workload, then stops it with SIGTERM: the JVM writes the cache as it exits.

check: fails unless the cache matches the command, in two ways. First, what the cache was made
from (scripts/aot-cache-inputs at training time: flags, class path, SHA-256 of the JDK's files
and of every jar) must equal the same list for the command checked: the JDK 25 JVM kept using a
cache after its jar was rebuilt with other content, serving classes that jar no longer held.
Second, the command runs with class-load logging, and most of the service's own classes loaded
up to its first 204 must come from the cache: a cache the JVM drops (another JDK build, a class
path it finds changed) costs a line at most in its log and the start time of no cache at all.

The command gets the caller's environment plus JAVA_TOOL_OPTIONS and the service's ClickHouse
settings (CLICKHOUSE_URL, CLICKHOUSE_DATABASE, CLICKHOUSE_TABLE); a `docker run` command passes
them on with `-e NAME`.
"""

import argparse
import base64
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

DATABASE = "aot_training"
TABLE = "events"
COLUMNS = "(event_time DateTime, service String, level String, message String)"
# The service's own classes: the JDK's default CDS archive never holds them, so a share of them
# from "shared objects file" can only come from the AOT cache.
APP_PACKAGE = "dev.pubsubclickhouse."
# The least share of the service's classes (loaded up to its first 204) the cache must supply,
# and the least number of them the log must show for the share to mean anything. With a fresh
# cache nearly all come from it; with a stale one none do.
MIN_CACHED_SHARE = 0.9
MIN_APP_CLASSES = 50
CLASS_LOAD = re.compile(r"\[class,load\s*\] (\S+) source: (.*)$")


def push_body(message_id):
    row = {"event_time": "2026-01-15 12:00:00", "service": "aot", "level": "INFO",
           "message": "training %s" % message_id}
    data = base64.b64encode(json.dumps(row).encode()).decode()
    return json.dumps({"message": {"data": data, "messageId": message_id,
                                   "publishTime": "2026-01-15T12:00:00.000Z"},
                       "subscription": "projects/aot/subscriptions/aot-training"}).encode()


def post(url, message_id, timeout=10):
    request = urllib.request.Request(url, data=push_body(message_id),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status


def clickhouse(base, sql):
    with urllib.request.urlopen(urllib.request.Request(base, data=sql.encode()), timeout=30) as r:
        return r.read().decode()


def prepare_table(clickhouse_url, deadline_s=120):
    """Creates the table the training writes to, waiting for ClickHouse to answer."""
    start = time.monotonic()
    while True:
        try:
            clickhouse(clickhouse_url, "CREATE DATABASE IF NOT EXISTS " + DATABASE)
            break
        except (urllib.error.URLError, ConnectionError, OSError) as e:
            if time.monotonic() - start > deadline_s:
                raise RuntimeError("ClickHouse at %s did not answer within %d s (%s)" % (
                    clickhouse_url, deadline_s, getattr(e, "reason", None) or e))
            time.sleep(1)
    clickhouse(clickhouse_url, "CREATE TABLE IF NOT EXISTS %s.%s %s ENGINE = MergeTree ORDER BY "
                               "event_time" % (DATABASE, TABLE, COLUMNS))


def wait_for_204(url, process, deadline_s):
    """Seconds until a push is answered 204; fails when the process exits first."""
    start = time.monotonic()
    n = 0
    while time.monotonic() - start < deadline_s:
        if process.poll() is not None:
            raise RuntimeError("the start command exited with %s before its first 204"
                               % process.returncode)
        n += 1
        try:
            if post(url, "ready-%d" % n, timeout=5) == 204:
                return time.monotonic() - start
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.01)
    raise RuntimeError("no 204 from %s after %d s" % (url, deadline_s))


# A push's wait for its answer: beyond the service's own ANSWER_TIMEOUT_MS (50 s), after which it
# answers 503 itself, so only a service that stopped answering runs into it.
PUSH_TIMEOUT_S = 60


def push_workload(url, messages, concurrency):
    """Pushes `messages` messages over `concurrency` connections; every answer must be 204. A push
    with no answer at all (closed connection, timeout) fails the workload too, and the first
    failure ends it: the rest would only wait for a service that stopped answering."""
    failures = []

    def worker(k):
        for i in range(k, messages, concurrency):
            if failures:
                return
            try:
                status = post(url, "train-%d" % i, timeout=PUSH_TIMEOUT_S)
            except urllib.error.HTTPError as e:
                status = e.code
            except (urllib.error.URLError, http.client.HTTPException, OSError) as e:
                status = "no answer (%s)" % (getattr(e, "reason", None) or e)
            if status != 204:
                failures.append(status)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise RuntimeError("a training push was not answered 204 (%s); the workload stopped there"
                           % failures[0])


def start(command, java_options, clickhouse_url, log, env=None):
    env = dict(os.environ if env is None else env, JAVA_TOOL_OPTIONS=java_options,
               CLICKHOUSE_URL=clickhouse_url, CLICKHOUSE_DATABASE=DATABASE, CLICKHOUSE_TABLE=TABLE)
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(process, timeout_s):
    """SIGTERM, then waits (the JVM writes an AOT cache on the way out); SIGKILL after timeout_s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise RuntimeError("the start command did not exit %d s after SIGTERM" % timeout_s)


def train(command, url, output, clickhouse_url, log_path, messages=2000, concurrency=16,
          start_timeout_s=300, exit_timeout_s=600, env=None):
    """Runs `command` under a short push workload and stops it to write the cache to `output` (a
    path as the JVM sees it: inside the container for a `docker run`). `env`: the command's
    environment before the settings above (default: this process's)."""
    prepare_table(clickhouse_url)
    with open(log_path, "w") as log:
        process = start(command, "-XX:AOTCacheOutput=" + output, clickhouse_url, log, env)
        try:
            wait_for_204(url, process, start_timeout_s)
            push_workload(url, messages, concurrency)
        finally:
            code = stop(process, exit_timeout_s)
    # A JVM stopped by SIGTERM exits 143; anything else means it did not run to its end.
    if code not in (0, 143):
        raise RuntimeError("the start command exited with %s; see %s" % (code, log_path))


def classify(lines, app_package=APP_PACKAGE):
    """Where the service's classes came from: (from the cache, from elsewhere, examples of the
    latter), from -Xlog:class+load lines."""
    cached, elsewhere, examples = 0, 0, []
    for line in lines:
        match = CLASS_LOAD.search(line.rstrip("\n"))
        if not match or not match.group(1).startswith(app_package):
            continue
        if match.group(2).startswith("shared objects file"):
            cached += 1
        else:
            elsewhere += 1
            if len(examples) < 3:
                examples.append("%s from %s" % (match.group(1), match.group(2)))
    return cached, elsewhere, examples


def verdict(lines, app_package=APP_PACKAGE, min_share=MIN_CACHED_SHARE):
    """(passed, a sentence saying why)."""
    cached, elsewhere, examples = classify(lines, app_package)
    total = cached + elsewhere
    if total < MIN_APP_CLASSES:
        return False, ("the log shows %d classes of %s (at least %d expected): class-load "
                       "logging did not reach the JVM" % (total, app_package, MIN_APP_CLASSES))
    share = cached / total
    summary = "%d of %d classes of %s came from the AOT cache (%.0f%%, at least %.0f%% needed)" % (
        cached, total, app_package, 100 * share, 100 * min_share)
    if share < min_share:
        return False, summary + "; the cache does not match this command (e.g. %s)" % (
            "; ".join(examples))
    return True, summary


def compare_inputs(trained, current):
    """(same, why) for two scripts/aot-cache-inputs listings (lists of lines)."""
    trained = [line.rstrip("\n") for line in trained if line.strip()]
    current = [line.rstrip("\n") for line in current if line.strip()]
    if len(trained) < 3:
        return False, "the training's inputs list is empty or cut short"
    if trained == current:
        return True, "the cache's %d inputs (flags, class path, JDK files, jars) are unchanged" % (
            len(trained) - 2)
    gone = [line for line in trained if line not in current]
    new = [line for line in current if line not in trained]
    return False, "the cache was made from other inputs than this command's:%s%s" % (
        "".join("\n  trained: " + line[:160] for line in gone[:5]),
        "".join("\n  now:     " + line[:160] for line in new[:5]))


def check(command, url, clickhouse_url, log_path, start_timeout_s=300, app_package=APP_PACKAGE,
          min_share=MIN_CACHED_SHARE, trained_inputs=None, inputs=None, env=None):
    """Compares the inputs (lists of lines, when given), then starts `command` with class-load
    logging, waits for its first 204 and stops it; returns (passed, why). -Xlog:aot shows the
    JVM's own reason when it drops a cache."""
    inputs_why = ""
    if trained_inputs is not None or inputs is not None:
        same, inputs_why = compare_inputs(trained_inputs or [], inputs or [])
        if not same:
            return False, inputs_why
        inputs_why += "; "
    prepare_table(clickhouse_url)
    with open(log_path, "w") as log:
        process = start(command, "-Xlog:class+load=info:stdout -Xlog:aot=info:stdout",
                        clickhouse_url, log, env)
        try:
            wait_for_204(url, process, start_timeout_s)
        finally:
            stop(process, 60)
    with open(log_path, errors="replace") as f:
        lines = f.readlines()
    passed, why = verdict(lines, app_package, min_share)
    why = inputs_why + why
    if not passed:
        aot = [line.rstrip() for line in lines if "[aot" in line and "[class,load" not in line]
        why += "".join("\n  " + line for line in aot[-10:])
    return passed, why


def entrypoint_flags(entrypoint):
    """The JVM flags of an image's entrypoint (java FLAGS... -cp CLASSPATH MAIN), without the
    cache's own flag: what scripts/aot-cache-inputs lists as "flags"."""
    return [f for f in entrypoint[1:entrypoint.index("-cp")] if not f.startswith("-XX:AOTCache=")]


def entrypoint_with_cache(entrypoint, path):
    """The entrypoint with -XX:AOTCache=PATH right after java. A flag on the command line rather
    than JAVA_TOOL_OPTIONS: the JVM prints every JAVA_TOOL_OPTIONS it picks up to stderr, a
    line outside the service's JSON logs at every start."""
    return [entrypoint[0], "-XX:AOTCache=" + path] + entrypoint_flags(entrypoint) + entrypoint[
        entrypoint.index("-cp"):]


def read_lines(path):
    with open(path) as f:
        return f.readlines()


def log_tail(path, lines=20):
    """The end of the command's log without its class-load lines, for a failure's message: in
    Cloud Build the log itself stays in the workspace, which is gone when the build is."""
    try:
        with open(path, errors="replace") as f:
            kept = [line.rstrip("\n") for line in f if "[class,load" not in line]
    except OSError:
        return ""
    if not kept:
        return "\n  (%s is empty)" % path
    return "\n  the end of %s:%s" % (path, "".join("\n  " + line for line in kept[-lines:]))


def main(argv):
    # The image's entrypoint (JSON, as docker inspect prints it) for the build's shell steps.
    if argv[:1] == ["entrypoint-flags"] and len(argv) == 2:
        print(" ".join(entrypoint_flags(json.loads(argv[1]))))
        return 0
    if argv[:1] == ["entrypoint-with-cache"] and len(argv) == 3:
        print(json.dumps(entrypoint_with_cache(json.loads(argv[1]), argv[2])))
        return 0
    parser = argparse.ArgumentParser(
        prog="scripts/aot-cache",
        description="Train or check a JDK 25 AOT cache for the push service's start command"
                    " (everything after --). Also: entrypoint-flags ENTRYPOINT_JSON and"
                    " entrypoint-with-cache ENTRYPOINT_JSON PATH.")
    parser.add_argument("action", choices=["train", "check"])
    parser.add_argument("--url", required=True, help="where the command serves pushes")
    parser.add_argument("--clickhouse", required=True,
                        help="ClickHouse's HTTP URL, as this script and the service reach it")
    parser.add_argument("--output", help="train: the cache's path as the JVM sees it")
    parser.add_argument("--log", default="aot-cache.log", help="the command's output")
    parser.add_argument("--trained-inputs",
                        help="check: scripts/aot-cache-inputs's list from the training")
    parser.add_argument("--inputs", help="check: the same list for the command checked")
    parser.add_argument("--messages", type=int, default=2000, help="train: pushes sent")
    parser.add_argument("--start-timeout", type=int, default=300,
                        help="seconds to the first 204 (an emulated architecture is slow)")
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        parser.error("the start command follows --")
    command = argv[argv.index("--") + 1:]
    args = parser.parse_args(argv[:argv.index("--")])
    if args.action == "train" and not args.output:
        parser.error("train needs --output")
    if bool(args.trained_inputs) != bool(args.inputs):
        parser.error("--trained-inputs and --inputs go together")
    try:
        if args.action == "train":
            train(command, args.url, args.output, args.clickhouse, args.log,
                  messages=args.messages, start_timeout_s=args.start_timeout)
            print("aot-cache: trained; the cache is at %s (as the command sees it)" % args.output)
            return 0
        lists = [read_lines(path) for path in (args.trained_inputs, args.inputs)] \
            if args.inputs else [None, None]
        passed, why = check(command, args.url, args.clickhouse, args.log,
                            start_timeout_s=args.start_timeout, trained_inputs=lists[0],
                            inputs=lists[1])
    except RuntimeError as e:
        raise RuntimeError("%s%s" % (e, log_tail(args.log)))
    print("aot-cache: %s: %s" % ("fresh" if passed else "STALE", why))
    return 0 if passed else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except RuntimeError as e:
        sys.exit("aot-cache: failed: %s" % e)
