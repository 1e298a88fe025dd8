"""Part pull: the service fed by push and by pull (PUBSUB_SUBSCRIPTION) at the same offered load, one
after the other: messages/s stored, p50/p99 from publish to row (the row's DEFAULT now64(3) at
INSERT minus the message's publish time, both on this machine's clock) and the service's CPU per
message.

Pull takes its messages from a subscription of the Pub/Sub emulator. Push gets them from this
script, as Pub/Sub's push would send them: each message POSTed when it is published, with its
publish time, up to PUSH_WINDOW requests in flight. The emulator's own push keeps two requests in
flight per subscription (DESIGN.md), which makes every push wait for an INSERT of one or two
messages: it measured about 50 msg/s here, a limit of the emulator and not of push.
"""

import base64
import concurrent.futures
import datetime
import json
import os
import subprocess
import time
import urllib.error
import urllib.request

from .clickhouse import ch, ch_row, truncate
from .processes import Server, cpu_seconds, pinned, service_env
from .settings import FUNCTION_JAR, IMAGE_JAVA, PORT_BASE, REPO, SERVICE_JVM, WORK, log

EMULATOR_PORT = PORT_BASE + 50
PORTS = {"push": PORT_BASE + 51, "pull": PORT_BASE + 52}
PROJECT = "bench"
TICK_S = 0.1
PUSH_WINDOW = 64
# The push part's message, with the metadata the latency is read from.
DATA = base64.b64encode(json.dumps({
    "event_time": "2025-12-30 12:00:00", "service": "api", "level": "INFO",
    "message": "PRE-DATAFLOW TEST"}, separators=(",", ":")).encode()).decode()
COLUMNS = ("(event_time DateTime, service String, level String, message String,"
           " _pubsub_message_id String, _pubsub_publish_time DateTime64(3, 'UTC'),"
           " stored_at DateTime64(3, 'UTC') DEFAULT now64(3))")


def schedule(rate, seconds, tick=TICK_S):
    """Messages to publish at each tick so that by the end of tick k, round(rate * k * tick) are
    out: the offered load is `rate` per second, spread evenly, with no drift from rounding."""
    ticks = int(round(seconds / tick))
    return [int(round(rate * (k + 1) * tick)) - int(round(rate * k * tick)) for k in range(ticks)]


def emulator(command):
    env = dict(os.environ, PUBSUB_EMULATOR_PORT=str(EMULATOR_PORT),
               PUBSUB_EMULATOR_DIR=os.path.join(WORK, "pubsub-emulator"))
    out = subprocess.run([os.path.join(REPO, "scripts", "pubsub-emulator"), command], env=env,
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def rest(method, path, body=None):
    request = urllib.request.Request(
        "http://127.0.0.1:%d/v1/projects/%s/%s" % (EMULATOR_PORT, PROJECT, path),
        data=None if body is None else json.dumps(body).encode(), method=method,
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


def publish_at(topic, rate, seconds):
    """Publishes `rate` messages a second for `seconds`; returns how many."""
    published = 0
    start = time.monotonic()
    for k, count in enumerate(schedule(rate, seconds)):
        if count:
            rest("POST", "topics/%s:publish" % topic, {"messages": [{"data": DATA}] * count})
            published += count
        pause = start + (k + 1) * TICK_S - time.monotonic()
        if pause > 0:
            time.sleep(pause)
    return published


def push_body(message_id):
    """A wrapped push request of the suite's message, published now."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    return json.dumps({"message": {"data": DATA, "messageId": message_id, "publishTime": now},
                       "subscription": "projects/%s/subscriptions/bench-push" % PROJECT}).encode()


def post(port, body):
    request = urllib.request.Request("http://127.0.0.1:%d/" % port, data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def push_at(port, rate, seconds, first_id):
    """POSTs `rate` messages a second for `seconds` (ids from `first_id`); returns how many were
    answered 2xx, once every answer is in."""
    answers = []
    start = time.monotonic()
    next_id = first_id
    with concurrent.futures.ThreadPoolExecutor(PUSH_WINDOW) as pool:
        for k, count in enumerate(schedule(rate, seconds)):
            for _ in range(count):
                answers.append(pool.submit(post, port, push_body("bench-%d" % next_id)))
                next_id += 1
            pause = start + (k + 1) * TICK_S - time.monotonic()
            if pause > 0:
                time.sleep(pause)
    return sum(1 for a in answers if 200 <= a.result() < 300)


def stored(table):
    return int(ch("SELECT count() FROM bench.%s" % table).strip())


def await_stored(table, count, timeout_s=120):
    deadline = time.monotonic() + timeout_s
    while stored(table) < count and time.monotonic() < deadline:
        time.sleep(0.2)
    return stored(table)


def wait_ready(server, timeout_s=90):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError("%s exited at start; see its log" % server.name)
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/healthz" % server.port, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("%s did not become ready" % server.name)


def measure_target(name, server, topic, table, args):
    """A warm-up, then `args.duration` seconds at `args.pull_rate`, then until every row is in."""
    def offer(seconds, first_id):
        if name == "push":
            return push_at(server.port, args.pull_rate, seconds, first_id)
        return publish_at(topic, args.pull_rate, seconds)

    await_stored(table, offer(args.warmup, 0))
    truncate(table)
    cpu0 = cpu_seconds(server.process.pid)
    published = offer(args.duration, 10_000_000)
    rows = await_stored(table, published)
    cpu1 = cpu_seconds(server.process.pid)
    count, seconds, p50, p99 = ch_row(
        "SELECT count(), dateDiff('millisecond', min(_pubsub_publish_time), max(stored_at)) / 1e3,"
        " quantileExact(0.5)(ms), quantileExact(0.99)(ms) FROM (SELECT *, dateDiff('millisecond',"
        " _pubsub_publish_time, stored_at) AS ms FROM bench.%s)" % table)
    row = {"target": name, "offered_per_s": args.pull_rate, "published": published,
           "stored": rows, "msgs_per_s": int(count) / max(float(seconds), 1e-3),
           "p50_ms": float(p50), "p99_ms": float(p99),
           "service_cpu_us_per_msg": (cpu1 - cpu0) * 1e6 / max(rows, 1)}
    log("  %-4s %4d msg/s offered: %6.0f msg/s stored  p50 %6.1f ms  p99 %6.1f ms"
        "  cpu %4.0f us/msg  %d of %d stored" % (
            name, args.pull_rate, row["msgs_per_s"], row["p50_ms"], row["p99_ms"],
            row["service_cpu_us_per_msg"], rows, published))
    return row


def run_pull(args):
    log("pull (through the Pub/Sub emulator) beside push at %d msg/s" % args.pull_rate)
    host = emulator("start")
    try:
        rows = []
        for name in ["push", "pull"]:
            table, topic = "e2e_" + name, "bench-" + name
            ch("DROP TABLE IF EXISTS bench.%s" % table)
            ch("CREATE TABLE bench.%s %s ENGINE = MergeTree ORDER BY stored_at" % (table, COLUMNS))
            extra = {"PUSH_AUTH": "none"}
            if name == "pull":
                rest("PUT", "topics/" + topic)
                rest("PUT", "subscriptions/" + topic, {
                    "topic": "projects/%s/topics/%s" % (PROJECT, topic), "ackDeadlineSeconds": 60})
                extra.update(PUBSUB_SUBSCRIPTION="projects/%s/subscriptions/%s" % (PROJECT, topic),
                             PUBSUB_ENDPOINT=host)
            command = pinned([IMAGE_JAVA] + SERVICE_JVM + ["-jar", FUNCTION_JAR],
                             "service")
            server = Server(name, command, service_env(table=table, port=PORTS[name], extra=extra),
                            PORTS[name], os.path.join(WORK, "e2e-%s.log" % name)).start()
            try:
                wait_ready(server)
                rows.append(measure_target(name, server, topic, table, args))
            finally:
                server.stop()
        return {"rate": args.pull_rate, "duration": args.duration, "rows": rows}
    finally:
        emulator("stop")
