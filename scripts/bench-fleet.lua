-- wrk script for the fleet part of scripts/bench: one connection per thread (wrk -tN -cN), so a
-- thread's answers come in the order of its requests and each 204 can be matched to its message.
-- Every acknowledged message id is appended to <dir>/acked-<tag>-<thread>.txt; after a nack (429,
-- 5xx) the connection backs off as Pub/Sub does (100 ms, doubling to 2 s), reset by the next ack.
-- Arguments (after --): the output directory and a tag unique to this run and instance.
local data = "eyJldmVudF90aW1lIjoiMjAyNS0xMi0zMCAxMjowMDowMCIsInNlcnZpY2UiOiJhcGkiLCJsZXZlbCI6IklORk8iLCJtZXNzYWdlIjoiUFJFLURBVEFGTE9XIFRFU1QifQ=="
local prefix = '{"message":{"data":"' .. data .. '","attributes":{"origin":"bench"},"messageId":"'
local suffix = '","publishTime":"2026-01-15T12:00:00.000Z"},"subscription":"projects/bench/subscriptions/fleet"}'
local headers = { ["Content-Type"] = "application/json" }
local threads = {}
local created = 0

function setup(thread)
  created = created + 1
  thread:set("index", created)
  table.insert(threads, thread)
end

local counter, sent, backoff, out = 0, nil, 0, nil
acks, refusals, failures = 0, 0, 0

function init(args)
  local dir, tag = args[1], args[2]
  id_prefix = tag .. "-" .. index .. "-"
  out = io.open(dir .. "/acked-" .. tag .. "-" .. index .. ".txt", "w")
  out:setvbuf("line")
end

function request()
  counter = counter + 1
  sent = id_prefix .. counter
  return wrk.format("POST", "/", headers, prefix .. sent .. suffix)
end

function response(status, headers, body)
  if status == 204 then
    out:write(sent, "\n")
    acks = acks + 1
    backoff = 0
  else
    if status == 429 then refusals = refusals + 1 else failures = failures + 1 end
    backoff = math.min(2000, math.max(100, backoff * 2))
  end
end

function delay()
  return backoff
end

function done(summary, latency, requests)
  local a, r, f = 0, 0, 0
  for _, thread in ipairs(threads) do
    a = a + thread:get("acks")
    r = r + thread:get("refusals")
    f = f + thread:get("failures")
  end
  local points = {}
  for p = 1, 99 do
    points[#points + 1] = tostring(latency:percentile(p))
  end
  points[#points + 1] = tostring(latency:percentile(99.9))
  points[#points + 1] = tostring(latency.max)
  local e = summary.errors
  io.write(string.format(
    'WRKFLEET {"requests":%d,"duration_us":%d,"acks":%d,"refusals":%d,"failures":%d,'
      .. '"socket_errors":%d,"latency_us_by_percentile":[%s]}\n',
    summary.requests, summary.duration, a, r, f, e.connect + e.read + e.write + e.timeout,
    table.concat(points, ",")))
end
