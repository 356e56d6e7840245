-- sliding-window-log: a sorted set of admitted requests scored by their time. At most `limit`
-- entries in any interval of length `window`; only admitted requests are logged, so the set never
-- holds more than `limit` members.

-- Appends `cost` members scored `stamp` after `count` existing ones to `args` (ZADD's score/member
-- pairs); members are unique: the time plus the set's size at insertion, which only grows at a
-- given time.
local function log_members(args, stamp, count, cost)
  local i = #args + 1
  for j = 1, cost do
    args[i] = stamp
    args[i + 1] = stamp .. ':' .. (count + j)
    i = i + 2
  end
end

-- ZADD of score/member pairs, 500 pairs at a time: unpack (and a Lua call) takes a bounded number
-- of values. A refund (see below) removes members, so a set's size can shrink at a given time and a
-- name be made twice: NX keeps the member there, and an entry whose name was taken is added under a
-- name past every size the set can have had (its size plus the pairs being added, plus a counter).
local function log_add(key, args)
  local n = #args
  local added = 0
  for i = 1, n, 1000 do
    added = added + redis.call('ZADD', key, 'NX', unpack(args, i, math.min(i + 999, n)))
  end
  local extra = 0
  while added < n / 2 do
    extra = extra + 1
    local stamp = args[1]
    added = added + redis.call('ZADD', key, 'NX', stamp, stamp .. ':' .. (redis.call('ZCARD', key) + n + extra))
  end
end

-- In a batch (see kv-batch.lua) a log is trimmed and read once per run: later decisions
-- of the run on one key take its size and oldest entry from `logs`. The first entries a run adds
-- to a key go to Redis at once (most keys of a run see one decision); later ones wait in the
-- record for one ZADD when the run ends. A decision at another instant than the key's record
-- (explicit times, in tests), or after one call charged the key twice, writes what waits and reads
-- the key afresh.
local logs          -- key -> { at = instant (false: read afresh), count = entries, oldest = score
                    --          of the oldest (false: none), written = the run added to it, args =
                    --          waiting ZADD pairs (false: none), ttl = ms for PEXPIRE }
local waiting       -- keys with entries waiting, in order
local function log_write_waiting(key, log)
  if log.args then
    log_add(key, log.args)
    redis.call('PEXPIRE', key, log.ttl)
    log.args = false
  end
end
if batching then
  run_starts[#run_starts + 1] = function()
    logs, waiting = {}, {}
  end
  flush_hooks[#flush_hooks + 1] = function()
    for i = 1, #waiting do
      local key = waiting[i]
      log_write_waiting(key, logs[key])
    end
  end
end

-- A key holding another algorithm's value (its policy's algorithm changed while the key lived):
-- the units it holds (see units_held) become entries logged now, replacing it. Any other error is
-- raised.
local function log_adopt(key, err, limit, window)
  if not find(err.err, 'WRONGTYPE', 1, true) then error(err) end
  local held = units_held(redis.call('GET', key), key, limit, window)
  if held > limit then held = limit end
  redis.call('DEL', key)
  if held > 0 then
    local args = {}
    log_members(args, int(now), 0, held)
    log_add(key, args)
    redis.call('PEXPIRE', key, ttl_ms(window))
  end
end

-- The log of `key` at `now`: its size, the score of its oldest entry (nil when empty), and in a
-- batch the run's record of it.
local function log_read(key, limit, window)
  local log
  if batching then
    log = logs[key]
    if log and log.at == now then
      return log.count, log.oldest or nil, log
    end
    if log then log_write_waiting(key, log) end
  end
  -- an entry logged at s counts while now - s < window
  local trimmed = redis.pcall('ZREMRANGEBYSCORE', key, '-inf', int(now - window))
  if type(trimmed) == 'table' then log_adopt(key, trimmed, limit, window) end
  local count = redis.call('ZCARD', key)
  local oldest
  if count > 0 then oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]) end
  if batching then
    -- every field set here (false for none), so that the table is built at its final size
    log = { at = now, count = count, oldest = oldest or false, written = false,
            args = false, ttl = 0 }
    logs[key] = log
  end
  return count, oldest, log
end

-- The score of the entry of the given rank (0: the oldest) in a log of at least rank + 1 entries.
local function log_score(key, log, rank, oldest)
  if rank == 0 then return oldest end
  -- ranked by Redis, waiting entries included: they need not be the newest (the log may hold
  -- entries later than now, left at a later instant or by a clock that went back)
  if log then log_write_waiting(key, log) end
  return tonumber(redis.call('ZRANGE', key, rank, rank, 'WITHSCORES')[2])
end

local function sliding_log_write(key, window, count, cost, log)
  local stamp = int(now)
  if log and count ~= log.count then
    -- the record moved since this decision read it (one call naming the key twice): write as a
    -- lone call would, and let the next decision read the key afresh
    log_write_waiting(key, log)
    log.at = false
    log = nil
  end
  if log and log.written then
    -- the key was written in this run already: wait for the end of the run
    if not log.args then
      log.args = {}
      waiting[#waiting + 1] = key
    end
    log_members(log.args, stamp, count, cost)
    log.ttl = ttl_ms(window)
    log.count = count + cost
    return
  end
  if cost == 1 then
    if redis.call('ZADD', key, 'NX', stamp, stamp .. ':' .. (count + 1)) == 0 then
      log_add(key, { stamp, stamp .. ':' .. (count + 1) })
    end
  else
    local args = {}
    log_members(args, stamp, count, cost)
    log_add(key, args)
  end
  redis.call('PEXPIRE', key, ttl_ms(window))
  if log then
    -- recorded once written: a write that fails (out of memory, say) leaves the record as Redis is
    log.written = true
    log.count = count + cost
    if not log.oldest or now < log.oldest then log.oldest = now end
  end
end

A['sliding-window-log'] = function(key, limit, window, burst, cost, write)
  local count, oldest, log = log_read(key, limit, window)
  local reset_now = 0
  if count > 0 then reset_now = oldest + window - now end
  if cost > limit then return 0, limit - count, -1, reset_now, reset_now, nil end
  if count + cost > limit then
    -- admitted once the (count + cost - limit) oldest entries have left the window
    local rank = count + cost - limit - 1
    return 0, limit - count, log_score(key, log, rank, oldest) + window - now, reset_now, reset_now, nil
  end
  local reset = window
  if count > 0 then reset = reset_now end
  if write then
    sliding_log_write(key, window, count, cost, log)
    return 1, limit - count, 0, reset, reset_now, nil
  end
  return 1, limit - count, 0, reset, reset_now, function()
    sliding_log_write(key, window, count, cost, log)
  end
end
-- A refund (see settle in decide.lua): `units` of the entries logged at the reservation's instant `at`
-- leave the log (fewer if some have left the window since).
-- In a batch, a settlement changes a log behind the run's record of it: what waits is written, and the next
-- decision reads the key afresh.
local function log_forget_record(key)
  if batching then
    local log = logs[key]
    if log then
      log_write_waiting(key, log)
      log.at = false
    end
  end
end

-- A debit: `units` entries more are logged now, up to twice the limit in the window (a debt of one capacity:
-- nothing is admitted until that many have left it).
D['sliding-window-log'] = function(key, limit, window, burst, units)
  log_forget_record(key)
  local trimmed = redis.pcall('ZREMRANGEBYSCORE', key, '-inf', int(now - window))
  if type(trimmed) == 'table' then return end
  local count = redis.call('ZCARD', key)
  if count + units > 2 * limit then units = 2 * limit - count end
  if units <= 0 then return end
  local args = {}
  log_members(args, int(now), count, units)
  log_add(key, args)
  redis.call('PEXPIRE', key, ttl_ms(window))
end

R['sliding-window-log'] = function(key, limit, window, burst, at, units)
  log_forget_record(key)
  local stamp = int(at)
  local found = redis.pcall('ZRANGEBYSCORE', key, stamp, stamp, 'LIMIT', 0, units)
  if type(found) ~= 'table' or found.err then return end
  for i = 1, #found, 1000 do
    redis.call('ZREM', key, unpack(found, i, math.min(i + 999, #found)))
  end
end

-- Admissions at one instant leave cost units fewer each (see decide_same in batch.lua); the reset is
-- when the oldest entry leaves the window, the first admission's entries included.
if batching then
  LINEAR[A['sliding-window-log']] = function(key, limit, window, remaining)
    local log = logs[key]
    if log and log.at == now and log.oldest then return ms(log.oldest + window - now) end
    return nil
  end
end
