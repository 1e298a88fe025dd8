-- wrk script for scripts/bench: the direct peer. Each request is one INSERT of the seed row
-- straight into ClickHouse's HTTP interface (JSONEachRow, async_insert=0), with no handler in
-- between: the floor under any handler. Prints the WRKJSON line of bench-result.lua.
local row = '{"event_time":"2025-12-30 12:00:00","service":"api","level":"INFO","message":"PRE-DATAFLOW TEST"}\n'
local path = "/?query=INSERT%20INTO%20bench.push_direct%20FORMAT%20JSONEachRow&async_insert=0"
local headers = { ["Content-Type"] = "application/octet-stream" }

function request()
  return wrk.format("POST", path, headers, row)
end

-- done(): the WRKJSON line, from bench-result.lua beside this script (wrk loads one script).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "bench-result.lua")
