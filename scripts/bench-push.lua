-- wrk script for scripts/bench: POSTs wrapped Pub/Sub push envelopes, each with a unique
-- messageId and the base64 seed row, and prints one machine-readable line (WRKJSON ...) at the end.
-- The seed row: {"event_time":"2025-12-30 12:00:00","service":"api","level":"INFO","message":"PRE-DATAFLOW TEST"}
local data = "eyJldmVudF90aW1lIjoiMjAyNS0xMi0zMCAxMjowMDowMCIsInNlcnZpY2UiOiJhcGkiLCJsZXZlbCI6IklORk8iLCJtZXNzYWdlIjoiUFJFLURBVEFGTE9XIFRFU1QifQ=="
local prefix = '{"message":{"data":"' .. data .. '","attributes":{"origin":"bench"},"messageId":"'
local suffix = '","publishTime":"2026-01-15T12:00:00.000Z"},"subscription":"projects/bench/subscriptions/bench-push"}'
local headers = { ["Content-Type"] = "application/json" }
local counter = 0
-- A run prefix (time-based) and a thread number keep ids unique across threads and runs.
tag = "t0"
local threads = 0
local run = tostring(os.time()) .. tostring(math.random(1000, 9999))

function setup(thread)
  threads = threads + 1
  thread:set("tag", run .. "t" .. threads)
end

function request()
  counter = counter + 1
  return wrk.format("POST", "/", headers, prefix .. tag .. "-" .. counter .. suffix)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,"errors_status":%d,"errors_connect":%d,'
      .. '"errors_read":%d,"errors_write":%d,"errors_timeout":%d,"p50_us":%d,"p90_us":%d,'
      .. '"p99_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.status, e.connect, e.read, e.write,
    e.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean))
end
