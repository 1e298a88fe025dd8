-- The end of a wrk run of scripts/bench-push.lua, bench-direct.lua and bench-cdc.lua, which load
-- this file with dofile: one machine-readable line, WRKJSON {...}, that scripts/benchsuite reads
-- (processes.py, parse_wrk_output).
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
