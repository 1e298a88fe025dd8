-- wrk script for scripts/bench: the direct peer. Each request is one INSERT of the seed row
-- straight into ClickHouse's HTTP interface (JSONEachRow, async_insert=0), with no handler in
-- between: the floor under any handler. Prints the same WRKJSON line as bench-push.lua.
local row = '{"event_time":"2025-12-30 12:00:00","service":"api","level":"INFO","message":"PRE-DATAFLOW TEST"}\n'
local path = "/?query=INSERT%20INTO%20bench.push_direct%20FORMAT%20JSONEachRow&async_insert=0"
local headers = { ["Content-Type"] = "application/octet-stream" }

function request()
  return wrk.format("POST", path, headers, row)
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
