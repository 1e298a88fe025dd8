-- wrk script for scripts/bench's cdc part (scripts/benchsuite/cdc.py): POSTs wrapped Pub/Sub push
-- envelopes whose data is spliced from a template file (the script's one argument, after --):
-- `C <base64>` lines are constant text, `S <name> <width>` lines are slots that start at a
-- multiple of 3 bytes, so base64 of the whole is the constant parts and each slot encoded alone.
-- Each request fills the slots as cdc.py's slot_values says: a new key, a higher LSN (run base
-- plus the step), the op c and u alternating. Prints the WRKJSON line of bench-result.lua.
local STRIDE = 16
local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local headers = { ["Content-Type"] = "application/json" }
local parts = {}
local counter = 0
local suffix = '","publishTime":"2026-01-15T12:00:00.000Z"},'
  .. '"subscription":"projects/bench/subscriptions/bench-cdc"}'
-- A run prefix (time-based) and a thread number keep message ids unique across threads and runs;
-- the run base keeps LSNs rising from run to run (a run sends far fewer than 10^6 per thread).
tag = "t0"
index = 1
local threads = 0
local run = tostring(os.time()) .. tostring(math.random(1000, 9999))
local run_base = os.time() * 1000000

function setup(thread)
  threads = threads + 1
  thread:set("tag", run .. "t" .. threads)
  thread:set("index", threads)
end

-- base64 of a string whose length is a multiple of 3
local function encode(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local n = a * 65536 + b * 256 + c
    out[#out + 1] = B64:sub(math.floor(n / 262144) + 1, math.floor(n / 262144) + 1)
      .. B64:sub(math.floor(n / 4096) % 64 + 1, math.floor(n / 4096) % 64 + 1)
      .. B64:sub(math.floor(n / 64) % 64 + 1, math.floor(n / 64) % 64 + 1)
      .. B64:sub(n % 64 + 1, n % 64 + 1)
  end
  return table.concat(out)
end

function init(args)
  for line in io.lines(args[1]) do
    local kind, rest = line:match("^(%u) (.*)$")
    if kind == "C" then
      parts[#parts + 1] = rest
    else
      local name, width = rest:match("^(%S+) (%d+)$")
      parts[#parts + 1] = { name = name, width = tonumber(width) }
    end
  end
end

function request()
  counter = counter + 1
  local step = counter * STRIDE + index
  local values = { key = step, lsn = run_base + step, op = (counter % 2 == 1) and '"c"' or '"u"' }
  local out = { '{"message":{"data":"' }
  for i = 1, #parts do
    local part = parts[i]
    if type(part) == "string" then
      out[#out + 1] = part
    else
      local text = type(values[part.name]) == "number"
        and string.format("%.0f", values[part.name]) or values[part.name]
      out[#out + 1] = encode(string.rep(" ", part.width - #text) .. text)
    end
  end
  out[#out + 1] = '","attributes":{"origin":"bench"},"messageId":"' .. tag .. "-" .. counter
  out[#out + 1] = suffix
  return wrk.format("POST", "/", headers, table.concat(out))
end

-- done(): the WRKJSON line, from bench-result.lua beside this script (wrk loads one script).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "bench-result.lua")
