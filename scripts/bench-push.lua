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

-- done(): the WRKJSON line, from bench-result.lua beside this script (wrk loads one script).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "bench-result.lua")
