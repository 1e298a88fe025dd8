"""The cdc part of the bench suite: the change events wrk sends and the floor judged on them."""

import base64
import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading
import unittest

from benchsuite import cdc
from benchsuite.floors import cdc_floors

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN_BASE = 1_796_438_548_000_000


def decode(lines, values):
    return json.loads(base64.b64decode(cdc.render(lines, values), validate=True))


class ChangeEventTest(unittest.TestCase):
    lines = cdc.template(cdc.debezium_parts())

    def test_an_event_is_a_wrapped_postgres_change_of_its_key_and_lsn(self):
        event = decode(self.lines, {"key": 33, "lsn": RUN_BASE + 33, "op": '"c"'})
        self.assertEqual(["schema", "payload"], list(event))
        schema, payload = event["schema"], event["payload"]
        self.assertEqual("struct", schema["type"])
        self.assertEqual(["before", "after", "source", "transaction", "op", "ts_ms", "ts_us",
                          "ts_ns"], [f["field"] for f in schema["fields"]])
        after_schema = schema["fields"][1]["fields"]
        self.assertEqual(list(payload["after"]), [f["field"] for f in after_schema])
        self.assertEqual({"id": 33, "customer": "customer-0042", "amount": "AeI6",
                          "placed": 1768478400123456, "day": 20468,
                          "note": "bench order: two items, standard shipping"}, payload["after"])
        self.assertEqual(123450, int.from_bytes(base64.b64decode(payload["after"]["amount"]),
                                                "big", signed=True))
        self.assertIsNone(payload["before"])
        self.assertEqual("c", payload["op"])
        source = payload["source"]
        self.assertEqual(("postgresql", RUN_BASE + 33), (source["connector"], source["lsn"]))
        self.assertEqual(cdc.SOURCE_TABLE, "%s.%s" % (source["schema"], source["table"]))
        self.assertGreater(len(base64.b64decode(cdc.render(self.lines, cdc.slot_values(1, 1, 0)))),
                           3000)

    def test_the_widest_slot_values_still_make_valid_json(self):
        event = decode(self.lines, {"key": 2**31 - 1, "lsn": 2**56 - 1, "op": '"u"'})
        self.assertEqual(2**31 - 1, event["payload"]["after"]["id"])
        self.assertEqual(2**56 - 1, event["payload"]["source"]["lsn"])
        self.assertEqual("u", event["payload"]["op"])

    def test_each_request_is_a_new_key_at_a_higher_version_c_and_u_alternating(self):
        for index in (1, 2):
            events = [decode(self.lines, cdc.slot_values(n, index, RUN_BASE))["payload"]
                      for n in range(1, 41)]
            lsns = [e["source"]["lsn"] for e in events]
            self.assertEqual(sorted(set(lsns)), lsns)
            self.assertEqual(["c", "u"] * 20, [e["op"] for e in events])
        keys = [cdc.slot_values(n, i, RUN_BASE)["key"] for n in range(1, 1000) for i in (1, 2)]
        self.assertEqual(len(keys), len(set(keys)))
        # a run a second later starts above where this one ended (under 10^6 / 16 per thread)
        self.assertGreater(cdc.slot_values(1, 1, RUN_BASE + 1_000_000)["lsn"],
                           cdc.slot_values(62_000, 2, RUN_BASE)["lsn"])

    def test_the_json_peer_sends_the_same_row(self):
        row = decode(cdc.template(cdc.json_parts()), {"key": 33})
        self.assertEqual({"id": 33, "customer": "customer-0042", "amount": "1234.50",
                          "placed": "2026-01-15 12:00:00.123456", "day": "2026-01-15",
                          "note": "bench order: two items, standard shipping"}, row)


class Capture(http.server.BaseHTTPRequestHandler):
    bodies = []

    def do_POST(self):
        Capture.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@unittest.skipUnless(shutil.which("wrk"), "wrk is not installed")
class WrkScriptTest(unittest.TestCase):
    def test_the_lua_script_sends_what_slot_values_says(self):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Capture)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        with tempfile.NamedTemporaryFile("w", suffix=".template") as f:
            f.write("\n".join(cdc.template(cdc.debezium_parts())) + "\n")
            f.flush()
            try:
                out = subprocess.run(
                    ["wrk", "-t2", "-c2", "-d1s", "-s", os.path.join(REPO, "scripts",
                                                                     "bench-cdc.lua"),
                     "http://127.0.0.1:%d/" % server.server_port, "--", f.name],
                    capture_output=True, text=True, check=True).stdout
            finally:
                server.shutdown()
                server.server_close()
        self.assertIn("WRKJSON ", out)
        self.assertGreater(len(Capture.bodies), 10)
        by_thread = {}
        for body in Capture.bodies:
            message = json.loads(body)["message"]
            thread, counter = message["messageId"].rsplit("t", 1)[1].split("-")
            by_thread.setdefault(int(thread), []).append(
                (int(counter), json.loads(base64.b64decode(message["data"]))["payload"]))
        for index, events in by_thread.items():
            base = None
            for counter, payload in events:
                expected = cdc.slot_values(counter, index, 0)
                lsn = payload["source"]["lsn"]
                base = lsn - expected["lsn"] if base is None else base
                self.assertEqual((expected["key"], base + expected["lsn"], expected["op"]),
                                 (payload["after"]["id"], lsn, '"%s"' % payload["op"]))
            self.assertEqual(0, base % 1_000_000)


def sample(target, concurrency, round_, msgs_per_s, non_2xx=0):
    return {"target": target, "concurrency": concurrency, "round": round_,
            "msgs_per_s": msgs_per_s, "non_2xx": non_2xx}


def cdc_results(debezium_per_round, json_non_2xx=0):
    samples = []
    for round_, value in enumerate(debezium_per_round, 1):
        samples += [sample("json", 256, round_, 1000.0, json_non_2xx),
                    sample("debezium", 256, round_, value)]
    rows = [sample("json", 256, 0, 1000.0), sample("debezium", 256, 0, 0.0)]
    return {"rows": rows, "samples": samples}


class CdcFloorTest(unittest.TestCase):
    def test_the_floor_is_the_median_of_the_paired_round_ratios(self):
        [check] = cdc_floors(cdc_results([400.0, 550.0, 900.0]))
        self.assertEqual("cdc c=256 >= 0.5x JSON of the same rows", check["floor"])
        self.assertAlmostEqual(0.55, check["value"])
        self.assertTrue(check["pass"])
        self.assertIn("median of 3 rounds (0.40x, 0.55x, 0.90x)", check["text"])

    def test_below_half_of_json_fails(self):
        [check] = cdc_floors(cdc_results([900.0, 450.0, 300.0]))
        self.assertAlmostEqual(0.45, check["value"])
        self.assertFalse(check["pass"])

    def test_with_an_even_number_of_rounds_the_worse_middle_round_judges(self):
        [check] = cdc_floors(cdc_results([400.0, 600.0, 490.0, 800.0]))
        self.assertAlmostEqual(0.49, check["value"])
        self.assertFalse(check["pass"])

    def test_a_json_peer_that_failed_fails_the_floor(self):
        [check] = cdc_floors(cdc_results([900.0, 900.0, 900.0], json_non_2xx=3))
        self.assertIsNone(check["value"])
        self.assertFalse(check["pass"])

    def test_no_floor_without_both_at_256(self):
        results = cdc_results([900.0])
        results["rows"] = [r for r in results["rows"] if r["target"] == "json"]
        self.assertEqual([], cdc_floors(results))


if __name__ == "__main__":
    unittest.main()
