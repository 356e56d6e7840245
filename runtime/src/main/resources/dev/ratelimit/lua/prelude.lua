-- Shared prelude of every rate-limit script. The build concatenates: prelude, then for a script
-- deciding one call kv-entry.lua, the algorithms, decide.lua and entry.lua, or for a script deciding
-- several kv-batch.lua, the algorithms, decide.lua and batch.lua. Redis runs a script's whole body on
-- every call: each script defines only what it uses.
-- The arguments of one call (see decide.lua):
--   time:  the current time in microseconds, or '' to read it from Redis TIME (the normal case, so
--          application clocks never matter; an explicit time exists for tests and for servers
--          that forbid TIME).
--   mode:  '0' to decide and charge; '1' to decide without charging, replying what a charge would
--          leave; '2' to decide without charging, replying the state as it stands (used to check
--          policies whose keys live in different cluster slots before charging any of them).
--   then six arguments per policy, one policy per key:
--          algorithm name, limit, window (microseconds), burst, shadow ('1': reported, never
--          denies and never blocks the other policies), cost.

-- The time of the call being decided, read by the algorithms.
local now
-- Redis TIME, read once per script run: the calls of one batch are decided at one instant.
local redis_now
local function set_clock(arg)
  if arg ~= '' then
    now = tonumber(arg)
    return
  end
  if not redis_now then
    local t = redis.call('TIME')
    redis_now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  end
  now = redis_now
end

-- Library functions as locals: a decision runs on every request, and a local is one VM register
-- where a global is two table lookups.
local floor, ceil, max = math.floor, math.ceil, math.max
local find, sub, fmt = string.find, string.sub, string.format

-- Numbers handed to Redis go through %.14g, which would round microsecond timestamps: format
-- every large integer explicitly.
local function int(x)
  return fmt('%d', x)
end

-- Whole milliseconds, rounded up, at least 1. The slack of a thousandth of a microsecond keeps
-- floating-point noise (20000000.000000004 us) from adding a millisecond to an exact wait.
local function ms(us)
  local v = ceil((us - 0.001) / 1000)
  if v < 1 then return 1 end
  return v
end
local ttl_ms = ms

-- The string keys of the window and bucket algorithms are read and written through kv_get(key) and
-- kv_set(key, value, ttl): with `ttl` (ms) the key expires then, without it the key keeps its TTL.
-- A script deciding one call (kv-entry.lua) makes them GET and SET; a batch (kv-batch.lua) reads a
-- key from Redis once per run and writes it once, when the run ends.
-- A value is written as the algorithm holds it: a number (a bucket's or GCRA's time), or a list of
-- integers (a window's index and counts, stored "i:c"). kv_get returns such a value as written
-- earlier in the run, or the string Redis holds: an algorithm reads both. The string is made only
-- when Redis is written, so later decisions of a run on a hot key neither format nor parse it.
local function kv_encode(v)
  local t = type(v)
  if t == 'number' then return fmt('%.17g', v) end
  if t == 'table' then
    local s = int(v[1])
    for i = 2, #v do s = s .. ':' .. int(v[i]) end
    return s
  end
  return v
end
-- Writes a value to Redis: it expires in `ttl` ms, or without `ttl` keeps the key's TTL.
local function kv_write(key, value, ttl)
  value = kv_encode(value)
  if ttl then
    redis.call('SET', key, value, 'PX', ttl)
  else
    redis.call('SET', key, value, 'KEEPTTL')
  end
end

-- Floating-point state (tokens, levels, theoretical arrival times) is compared with this slack
-- so that rounding never denies a unit that time has fully earned. It is far below one unit of
-- any policy, so it cannot admit a unit that has not been earned.
local EPS = 1e-9

-- Each algorithm is a function (key, limit, window, burst, cost, write) returning
--   allowed (1/0), units available before this request, microseconds until this request could
--   be admitted (0 when allowed, -1 when never: cost above capacity), microseconds until more
--   quota becomes available if the request is charged, the same if it is not charged, and, unless
--   `write` is true, a function that writes the charged state. With `write` true (a lone policy,
--   the common case) it writes that state itself when it admits: no closure to build and call.
local A = {}
