-- wrk script for scripts/bench: POSTs wrapped Pub/Sub push envelopes, each with a unique
-- messageId and the base64 seed row, and prints one machine-readable line (WRKJSON ...) at the end.
-- The seed row: {"event_time":"2025-12-30 12:00:00","service":"api","level":"INFO","message":"PRE-DATAFLOW TEST"}
-- With the argument rate=N (after --), this thread offers N requests a second; see init below.
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

-- rate=N: the thread offers at most N requests a second. wrk asks delay() before each request of
-- each connection; the thread keeps one schedule of slots 1/N s apart for all its connections, and
-- each request waits for the next free slot. Example, N = 4000: the slots are 0.25 ms apart; a
-- connection answered at 10.0 ms whose slot is 12.5 ms waits 2 ms (wrk waits whole milliseconds).
-- When every connection waits on an answer, a slot passes unused; the schedule keeps at most
-- 100 ms of such slots, so after a stall the connections catch up with at most 100 ms' worth of
-- requests at once. A server that answers slower than the schedule is offered fewer than N: the
-- suite reports the rate it reached.
function init(args)
  for _, arg in ipairs(args) do
    local rate = tonumber(arg:match("^rate=(.*)$"))
    if arg:match("^rate=") and not (rate and rate > 0) then
      error("bench-push.lua: rate must be a positive number of requests a second, not " .. arg)
    end
    if rate then
      local ffi = require("ffi")
      ffi.cdef("typedef struct { long sec; long nsec; } bench_timespec;"
        .. " int clock_gettime(int clock, bench_timespec *now);")
      local now = ffi.new("bench_timespec")
      local function millis()
        ffi.C.clock_gettime(1, now) -- CLOCK_MONOTONIC
        return tonumber(now.sec) * 1000 + tonumber(now.nsec) / 1e6
      end
      local gap, slot = 1000 / rate, nil
      function delay()
        local t = millis()
        if slot == nil or slot < t - 100 then
          slot = t - (slot and 100 or 0)
        end
        slot = slot + gap
        return math.max(0, slot - gap - t)
      end
    end
  end
end

function request()
  counter = counter + 1
  return wrk.format("POST", "/", headers, prefix .. tag .. "-" .. counter .. suffix)
end

-- done(): the WRKJSON line, from bench-result.lua beside this script (wrk loads one script).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "bench-result.lua")
