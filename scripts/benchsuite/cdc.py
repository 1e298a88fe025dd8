"""Part cdc: the push service with PAYLOAD_FORMAT=debezium beside the same service reading the
same rows as plain JSON, interleaved round by round at each concurrency.

wrk (scripts/bench-cdc.lua) posts Pub/Sub push envelopes whose data is a Debezium Postgres change
event in Kafka Connect's schema/payload wrapper (about 3 KB), into a latest-state table made from
sql/cdc/latest_state.sql. Each request is a new key and a higher LSN, the op alternating c and u,
so that every event is a new version. The data is base64, and base64 turns every 3 bytes into 4
characters on their own: the event is laid out so that each field that changes (the key, the LSN,
the op) starts at a multiple of 3 and is a multiple of 3 wide, padded with JSON whitespace. The
constant text between them is encoded once here; wrk encodes only the few changing bytes."""

import base64
import json
import os
import time
import urllib.request

from .clickhouse import ch
from .processes import Server, pinned, service_env, wrk
from .push import measure_push, median_rows
from .settings import FUNCTION_JAR, IMAGE_JAVA, PORT_BASE, REPO, SERVICE_JVM, TABLES, WORK, log

PORTS = {"json": PORT_BASE + 15, "debezium": PORT_BASE + 16}
LEVELS = [16, 256]
# Slot widths (multiples of 3): Int32 keys, LSNs below 2^56, the op as a JSON string.
WIDTHS = {"key": 12, "lsn": 18, "op": 3}
# Keys and LSNs step by this much per request, offset by the wrk thread's number, so that the
# threads of one wrk never share a key or an LSN.
STRIDE = 16
SOURCE_TABLE = "public.orders"

ROW_FIELDS = [
    {"type": "int32", "optional": False, "field": "id"},
    {"type": "string", "optional": False, "field": "customer"},
    {"type": "bytes", "optional": False, "name": "org.apache.kafka.connect.data.Decimal",
     "version": 1, "parameters": {"scale": "2", "connect.decimal.precision": "12"},
     "field": "amount"},
    {"type": "int64", "optional": False, "name": "io.debezium.time.MicroTimestamp",
     "version": 1, "field": "placed"},
    {"type": "int32", "optional": False, "name": "io.debezium.time.Date", "version": 1,
     "field": "day"},
    {"type": "string", "optional": True, "field": "note"},
]
# The Postgres connector's source block schema, as it writes it.
SOURCE_FIELDS = [
    {"type": "string", "optional": False, "field": "version"},
    {"type": "string", "optional": False, "field": "connector"},
    {"type": "string", "optional": False, "field": "name"},
    {"type": "int64", "optional": False, "field": "ts_ms"},
    {"type": "string", "optional": True, "name": "io.debezium.data.Enum", "version": 1,
     "parameters": {"allowed": "true,last,false,incremental"}, "default": "false",
     "field": "snapshot"},
    {"type": "string", "optional": False, "field": "db"},
    {"type": "string", "optional": True, "field": "sequence"},
    {"type": "int64", "optional": True, "field": "ts_us"},
    {"type": "int64", "optional": True, "field": "ts_ns"},
    {"type": "string", "optional": False, "field": "schema"},
    {"type": "string", "optional": False, "field": "table"},
    {"type": "int64", "optional": True, "field": "txId"},
    {"type": "int64", "optional": True, "field": "lsn"},
    {"type": "int64", "optional": True, "field": "xmin"},
]
TRANSACTION_FIELDS = [
    {"type": "string", "optional": False, "field": "id"},
    {"type": "int64", "optional": False, "field": "total_order"},
    {"type": "int64", "optional": False, "field": "data_collection_order"},
]
# One order, the same in every event but for its key: 1234.50, 2026-01-15 12:00:00.123456 UTC.
AMOUNT = base64.b64encode((123450).to_bytes(3, "big", signed=True)).decode()
PLACED_US = 1768478400123456
DAY = 20468
CUSTOMER = "customer-0042"
NOTE = "bench order: two items, standard shipping"


def envelope_schema():
    row = {"type": "struct", "optional": True, "name": "PostgreSQL_server.public.orders.Value",
           "fields": ROW_FIELDS}
    return {"type": "struct", "optional": False,
            "name": "PostgreSQL_server.public.orders.Envelope",
            "version": 2, "fields": [
                dict(row, field="before"), dict(row, field="after"),
                {"type": "struct", "optional": False,
                 "name": "io.debezium.connector.postgresql.Source", "fields": SOURCE_FIELDS,
                 "field": "source"},
                {"type": "struct", "optional": True, "name": "event.block", "version": 1,
                 "fields": TRANSACTION_FIELDS, "field": "transaction"},
                {"type": "string", "optional": False, "field": "op"},
                {"type": "int64", "optional": True, "field": "ts_ms"},
                {"type": "int64", "optional": True, "field": "ts_us"},
                {"type": "int64", "optional": True, "field": "ts_ns"}]}


def dumps(value):
    return json.dumps(value, separators=(",", ":"))


def debezium_parts():
    """The Debezium event as constant text and slots, in order."""
    after = ('{"id":', ("key",), ',"customer":%s,"amount":%s,"placed":%d,"day":%d,"note":%s}'
             % (dumps(CUSTOMER), dumps(AMOUNT), PLACED_US, DAY, dumps(NOTE)))
    source = ('{"version":"2.5.0.Final","connector":"postgresql","name":"PostgreSQL_server",'
              '"ts_ms":1768478400123,"snapshot":"false","db":"shop","sequence":null,'
              '"ts_us":1768478400123456,"ts_ns":1768478400123456000,"schema":"public",'
              '"table":"orders","txId":7781,"lsn":', ("lsn",), ',"xmin":null}')
    return (('{"schema":' + dumps(envelope_schema()) + ',"payload":{"before":null,"after":',)
            + after + (',"source":',) + source
            + (',"transaction":null,"op":', ("op",),
               ',"ts_ms":1768478400373,"ts_us":1768478400373000,"ts_ns":1768478400373000000}}'))


def json_parts():
    """The same row as a plain JSON message, for the JSON peer."""
    return ('{"id":', ("key",), ',"customer":%s,"amount":"1234.50",'
            '"placed":"2026-01-15 12:00:00.123456","day":"2026-01-15","note":%s}'
            % (dumps(CUSTOMER), dumps(NOTE)))


def template(parts):
    """The lines of a template file for bench-cdc.lua: `C <base64>` for constant text,
    `S <name> <width>` for a slot. Whitespace pads each slot to a multiple of 3 bytes."""
    lines, text = [], ""
    for part in parts:
        if isinstance(part, tuple):
            text += " " * (-len(text) % 3)
            lines.append("C " + base64.b64encode(text.encode()).decode())
            lines.append("S %s %d" % (part[0], WIDTHS[part[0]]))
            text = ""
        else:
            text += part
    lines.append("C " + base64.b64encode(text.encode()).decode())
    return lines


def slot_values(counter, index, run_base):
    """What bench-cdc.lua puts in the slots of request `counter` (1, 2, ...) of wrk thread
    `index` (1, 2, ...): a new key and a higher LSN each time, c and u alternating."""
    step = counter * STRIDE + index
    return {"key": step, "lsn": run_base + step, "op": '"c"' if counter % 2 else '"u"'}


def render(lines, values):
    """The base64 data bench-cdc.lua sends for these slot values (the same splicing)."""
    out = []
    for line in lines:
        kind, _, rest = line.partition(" ")
        if kind == "C":
            out.append(rest)
        else:
            name, width = rest.split()
            out.append(base64.b64encode(str(values[name]).rjust(int(width)).encode()).decode())
    return "".join(out)


def push_body(data, message_id):
    return ('{"message":{"data":"%s","attributes":{"origin":"bench"},"messageId":"%s",'
            '"publishTime":"2026-01-15T12:00:00.000Z"},'
            '"subscription":"projects/bench/subscriptions/bench-cdc"}'
            % (data, message_id)).encode()


def post(port, body):
    request = urllib.request.Request("http://127.0.0.1:%d/" % port, data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


def wait_ready(server, body, deadline_s=60):
    """Waits until the server answers an event 204 (it is refused while the service starts)."""
    start = time.monotonic()
    while time.monotonic() - start < deadline_s:
        if server.process.poll() is not None:
            raise RuntimeError("cdc: the %s target exited with %s" % (server.name,
                                                                    server.process.returncode))
        try:
            if post(server.port, body) == 204:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError("cdc: no 204 from the %s target after %d s" % (server.name, deadline_s))


def create_tables():
    ddl = open(os.path.join(REPO, "sql", "cdc", "latest_state.sql")).read()
    ddl = "\n".join(l for l in ddl.splitlines() if not l.startswith("--")).strip().rstrip(";")
    ch("DROP TABLE IF EXISTS bench.cdc_orders")
    ch(ddl.replace("CREATE TABLE orders", "CREATE TABLE bench.cdc_orders", 1))
    ch("DROP TABLE IF EXISTS bench.cdc_json_orders")
    ch("CREATE TABLE bench.cdc_json_orders (id Int32, customer String, amount Decimal(12, 2),"
       " placed DateTime64(6, 'UTC'), day Date32, note Nullable(String)) ENGINE = MergeTree"
       " ORDER BY id")


def check_one_event(templates):
    """One event of each kind posted and read back: the service took the row as it should."""
    run_base = 1 << 40
    for name, table in (("debezium", "cdc_orders"), ("json", "cdc_json_orders")):
        data = render(templates[name], slot_values(1, 1, run_base))
        status = post(PORTS[name], push_body(data, "check-%s" % name))
        stored = ch("SELECT id, customer, amount, placed, day, note FROM bench.%s WHERE id = %d"
                    " FORMAT TSV" % (table, STRIDE + 1)).strip()
        if status != 204 or stored != ("%d\t%s\t1234.5\t2026-01-15 12:00:00.123456\t2026-01-15"
                                       "\t%s" % (STRIDE + 1, CUSTOMER, NOTE)):
            raise RuntimeError("cdc: the %s target answered %d and stored %r" % (name, status,
                                                                                 stored))


def run_cdc(args, chpid):
    create_tables()
    os.makedirs(WORK, exist_ok=True)
    templates = {"debezium": template(debezium_parts()), "json": template(json_parts())}
    envs = {"debezium": {"PAYLOAD_FORMAT": "debezium",
                         "CDC_TABLES": "%s=cdc_orders" % SOURCE_TABLE},
            "json": {}}
    servers = {}
    for name in ("json", "debezium"):
        path = os.path.join(WORK, "cdc-%s.template" % name)
        with open(path, "w") as f:
            f.write("\n".join(templates[name]) + "\n")
        TABLES[name] = "cdc_%s" % ("orders" if name == "debezium" else "json_orders")
        env = service_env(table=TABLES[name], port=PORTS[name], extra=envs[name])
        if name == "debezium":
            env.pop("CLICKHOUSE_TABLE")
        command = pinned([IMAGE_JAVA] + SERVICE_JVM
                         + ["-jar", FUNCTION_JAR], "service")
        servers[name] = Server(name, command, env, PORTS[name],
                               os.path.join(WORK, "cdc-%s.log" % name)).start()
        servers[name].script = "bench-cdc.lua"
        servers[name].script_args = [path]
    log("cdc: Debezium events (%d bytes) beside the same rows as JSON (%d bytes)" % (
        len(base64.b64decode(render(templates["debezium"], slot_values(1, 1, 0)))),
        len(base64.b64decode(render(templates["json"], slot_values(1, 1, 0))))))
    try:
        for name, server in servers.items():
            wait_ready(server, push_body(render(templates[name], slot_values(0, 1, 0)), "ready"))
        check_one_event(templates)
        for name in servers:
            wrk(PORTS[name], 64, 2 * args.warmup, "bench-cdc.lua", servers[name].script_args)
        levels = [c for c in LEVELS if c in args.concurrency] or LEVELS
        samples = []
        for round_ in range(args.rounds):
            for level, connections in enumerate(levels):
                names = ["json", "debezium"] if (round_ + level) % 2 == 0 else ["debezium", "json"]
                for name in names:
                    row = measure_push(name, servers[name], chpid, connections, args)
                    row["round"] = round_ + 1
                    samples.append(row)
        rows = sorted(median_rows(samples),
                      key=lambda r: (r["concurrency"], r["target"] != "json"))
        return {"rows": rows, "samples": samples, "rounds": args.rounds,
                "event_bytes": {name: len(base64.b64decode(render(t, slot_values(1, 1, 0))))
                                for name, t in templates.items()}}
    finally:
        for server in servers.values():
            server.stop()
