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
--          policies whose keys live in different cluster slots before charging any of them);
--          '0<lease>' to decide and charge a call that holds concurrency slots, named <lease> (an
--          id unique to the call, see concurrency.lua); 'R' (or 'R<lease>') to charge a reservation:
--          as '0', and the reply's first value is the time of the charge (microseconds) instead of 1
--          when admitted; 'S<at>' to settle a reservation charged at <at>: each policy's cost is the
--          units it gives back, and the reply is the state as it then stands (as '2'); 'G<at>' as 'S<at>', the give-back
--          of a leased slice (a bucket gets back less the time passed since <at>); '3' as '2', but a denial locks its key out as a
--          charge's would (see decide.lua: the first pass of a call across cluster slots); 'W<us>' as '0',
--          a bucket policy taking the next turn within <us> microseconds when the cost does not fit now
--          (see bucket.lua: a call that waits, max-wait).
--   then six arguments per policy, one policy per key:
--          algorithm name, limit, window (microseconds), burst, shadow ('1': reported, never
--          denies and never blocks the other policies; 'L<us>': enforced, and a denial locks the key out
--          for <us> microseconds, see decide.lua), cost.

-- How a script runs (see FunctionLibrary.java): the build composes each script as definitions, then
-- `local function main()` (entry.lua, batch.lua or release.lua). Run with EVALSHA, the body ends by
-- calling main; loaded as a Redis function library, the definitions run once, when the function is
-- first called, and each call only runs main. KEYS and ARGV are locals the composed body declares (a
-- function gets them as arguments, not as globals), and every value a run changes is set afresh by
-- begin_run: nothing of one call may reach the next.

-- The functions that reset a run's state, each source adding its own (see begin_run).
local run_starts = {}

-- The time of the call being decided, read by the algorithms.
local now
-- The lease of the call being charged, when it holds concurrency slots (see concurrency.lua).
local lease
-- How far ahead, in microseconds, the call being charged may take its turn (mode 'W<us>', see bucket.lua); nil: it
-- takes none, it is decided now.
local turn
-- Redis TIME, read once per script run: the calls of one batch are decided at one instant.
local redis_now
-- Called first by main: forgets everything an earlier call left.
local last_ttl, last_ttl_digits -- see kv_write
local function begin_run()
  now, lease, turn, redis_now = nil, nil, nil, nil
  last_ttl, last_ttl_digits = nil, nil
  for i = 1, #run_starts do run_starts[i]() end
end
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
local floor, ceil, max, huge = math.floor, math.ceil, math.max, math.huge
local find, sub, fmt, match = string.find, string.sub, string.format, string.match
-- The globals a decision reads, as locals too: `redis` is read when the definitions run (each run of a script, a
-- function's first call), where it is the whole API.
local type, tonumber, tostring, pcall, error = type, tonumber, tostring, pcall, error
local redis = redis

-- Numbers handed to Redis go through %.14g, which would round microsecond timestamps: format
-- every large integer explicitly.
local function int(x)
  return fmt('%d', x)
end

-- Whole milliseconds, rounded up, at least 1, of a whole number of microseconds (every algorithm
-- computes its waits exactly, in whole microseconds rounded up).
local function ms(us)
  local v = ceil(us / 1000)
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
-- A bucket's time (see bucket.lua) is the table { a, b, den = limit }: a + b / limit microseconds, or
-- the number a when b is 0 (most policies: a unit lasts a whole number of microseconds), which spares
-- a table per decision.
-- It is written as a decimal number, a whole number of microseconds when b is 0, else with 15
-- decimals of b / limit (long division: every step stays an exact integer; trailing zeros dropped). Written this way the
-- value is still a plain number, and 15 decimals give b back exactly for any limit up to 1e7.
local function bucket_encode(v)
  local b, den = v[2], v.den
  if b == 0 then return int(v[1]) end
  local digits = ''
  for _ = 1, 3 do
    b = b * 100000
    local d = floor(b / den)
    b = b - d * den
    digits = digits .. fmt('%05d', d)
  end
  return int(v[1]) .. '.' .. match(digits, '^(.-)0*$')
end

-- A window's value, two or three integers (see window_parse), is their digits joined by ':'. A batch formats each
-- integer once per run, kept in `window_numbers` (by number: a run's values mostly share them); a script deciding
-- one call (nil) formats the value in one call.
local window_numbers
-- Writes a value to Redis: it expires in `ttl` ms, or without `ttl` keeps the key's TTL.
-- The TTL (a whole number of ms, see ms) goes as its digits: a number handed to Redis costs it a "%.17g" conversion
-- (about twice a '%d' format here), and the writes of a run mostly share one TTL (a bucket's unit, a window's end),
-- so the digits of the last one are kept (last_ttl_digits, reset by begin_run).
local function kv_write(key, value, ttl)
  local t = type(value)
  if t == 'number' then
    value = fmt('%d', value)
  elseif t == 'table' then
    local known, a, b, c = window_numbers, value[1], value[2], value[3]
    if value.den then
      value = bucket_encode(value)
    elseif known then
      local da, db = known[a], known[b]
      if not da then da = fmt('%d', a); known[a] = da end
      if not db then db = fmt('%d', b); known[b] = db end
      if c then
        local dc = known[c]
        if not dc then dc = fmt('%d', c); known[c] = dc end
        value = da .. ':' .. db .. ':' .. dc
      else
        value = da .. ':' .. db
      end
    else
      value = fmt(c and '%d:%d:%d' or '%d:%d', a, b, c)
    end
  end
  if ttl then
    if ttl ~= last_ttl then last_ttl, last_ttl_digits = ttl, fmt('%d', ttl) end
    redis.call('SET', key, value, 'PX', last_ttl_digits)
  else
    redis.call('SET', key, value, 'KEEPTTL')
  end
end

-- What kv_get returns for a key holding a sorted set: the log of a sliding-window-log policy whose
-- algorithm was changed (another deploy, or an instance not yet updated, may still use it).
local LOG = {}
-- A GET that failed: on a sorted set it is LOG; any other error is raised.
local function not_a_string(reply)
  if find(reply.err, 'WRONGTYPE', 1, true) then return LOG end
  error(reply)
end

-- Reading a key: each algorithm reads its own values and, when a policy's algorithm changed while
-- its keys live, those of the others, so that old and new deploys can share a key during a rolling
-- update without a decision failing.

-- A bucket's time from a value, as (a, b) in 1/den microseconds (see bucket.lua), or nil when the
-- value is not a bucket's. Fractions written for another limit are rounded up to this one (a
-- fraction of a microsecond later: never earlier than written). A plain number (an earlier
-- version's) is read the same way.
local function bucket_scale(a, frac, den)
  local b = ceil(frac * den - 1e-6)
  if b >= den then return a + 1, 0 end
  if b < 0 then b = 0 end
  return a, b
end
local function bucket_parse(v, den)
  local t = type(v)
  if t == 'number' then return v, 0 end
  if t == 'table' then
    if not v.den then return nil end
    if v.den == den then return v[1], v[2] end
    return bucket_scale(v[1], v[2] / v.den, den)
  end
  if find(v, '.', 1, true) then
    local whole, digits = match(v, '^(%d+)%.(%d+)$')
    if whole then return bucket_scale(tonumber(whole), tonumber('0.' .. digits), den) end
  end
  local x = tonumber(v)
  if not x or x ~= x or x == huge or x == -huge then return nil end
  local a = floor(x)
  if a == x then return a, 0 end
  return bucket_scale(a, x - a, den)
end

-- A window's value as index, previous count, current count, and whether it is the counter's own
-- three-field value; nil when the value is not a window's. fixed-window writes "i:c" (a table
-- { i, c } within a batch), sliding-window-counter "i:p:c" ({ i, p, c }).
-- In a batch run, the numbers are taken from `window_numbers` (by their digits, beside the digits by number that
-- kv_write keeps; set afresh for each run by kv-batch.lua), where tonumber costs Redis a strtod.
local function window_parse(v)
  if type(v) == 'table' then
    if v.den then return nil end
    if #v == 2 then return v[1], 0, v[2], false end
    return v[1], v[2], v[3], true
  end
  local i, p, c = match(v, '^(%d+):(%d+):?(%d*)$')
  if not i then return nil end
  local known = window_numbers
  if known then
    local ni, np = known[i], known[p]
    if not ni then ni = tonumber(i); known[i] = ni end
    if not np then np = tonumber(p); known[p] = np end
    if c == '' then return ni, 0, np, false end
    local nc = known[c]
    if not nc then nc = tonumber(c); known[c] = nc end
    return ni, np, nc, true
  end
  if c == '' then return tonumber(i), 0, tonumber(p), false end
  return tonumber(i), tonumber(p), tonumber(c), true
end

-- The units another algorithm's value holds in use now, in the reading policy's terms: the entries
-- of a log within the window, a window's counts (both, to be safe), a bucket's units still
-- draining. What the reader then writes replaces that value.
local function units_held(v, key, limit, window)
  if v == LOG then
    return redis.call('ZCOUNT', key, '(' .. int(now - window), '+inf')
  end
  local _, p, c = window_parse(v)
  if c then return p + c end
  local a, b = bucket_parse(v, limit)
  if a then
    local held = ceil(((a - now) * limit + b) / window - 1e-9)
    if held > 0 then return held end
  end
  return 0
end

-- Each algorithm is a function (key, limit, window, burst, cost, write) returning
--   allowed (1/0), units available before this request, microseconds until this request could
--   be admitted (0 when allowed, -1 when never: cost above capacity; when admitted at a turn, see
--   bucket.lua, the microseconds until the turn), microseconds until more
--   quota becomes available if the request is charged, the same if it is not charged, and, unless
--   `write` is true, a function that writes the charged state. With `write` true (a lone policy,
--   the common case) it writes that state itself when it admits: no closure to build and call, and
--   the uncharged reset is not read (an algorithm may skip computing it and return any number).
local A = {}
-- The refunds of a settled reservation (see settle in decide.lua), by algorithm: a function (key, limit,
-- window, burst, at, units) giving `units` back to a key charged at the microsecond `at`, never more than
-- it holds in use. An algorithm without one (concurrency) has nothing to settle.
local R = {}
-- The debits of a settled reservation, by algorithm: a function (key, limit, window, burst, units) charging
-- `units` more now, into debt if need be: at most one capacity beyond it, denied until it is paid off.
local D = {}
-- The algorithms whose admissions at one instant are linear: each admission of cost c leaves c units
-- fewer, so a batch charges a burst of identical calls on one key at once. The value is true when the
-- reset does not move either, else a function (key, limit, window, remaining) giving the reset in ms
-- of an admission that left `remaining` units, once the burst is charged (nil: the first call's, for
-- every call of the burst: whether it is nil depends on the key, never on `remaining`).
local LINEAR = {}
