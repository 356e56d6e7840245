-- concurrency: at most `limit` units in flight per key at once. The key is a sorted set of leases,
-- each scored by the microsecond at which it expires: `window` after it was taken, the longest a
-- slot is held when its instance dies before releasing it. A charge takes `cost` members named after
-- the call's lease (see decide.lua): the lease itself for one unit, "<lease>:<i>" for more; the
-- release script removes them when the request ends. Its keys end in ":in-flight", apart from every
-- rate algorithm's: in-flight requests and past rates are different quantities, so a policy switched
-- to or from concurrency starts afresh.
-- A release can reach Redis before its charge: the call timed out or failed while its charge was
-- still queued, or was resent after NOSCRIPT. A release that finds nothing leaves a tombstone, the
-- member "<lease>" scored by minus the microsecond it expires at (`window` later), and a charge
-- naming a tombstoned lease is denied and takes nothing (a wait of -1: that call can never be
-- admitted): its caller has given up on it. Live leases
-- have positive scores, tombstones negative ones, so one ZREMRANGEBYSCORE over [-now, now] drops
-- both kinds once expired.
-- A slot frees when a request ends, which no clock predicts: retry-after and reset are the time until
-- the soonest lease expires, at most a second.
local SECOND = 1000000

local function concurrency_take(key, window, cost)
  if not lease then
    error(redis.error_reply('ERR a concurrency policy is charged without a lease'))
  end
  local expiry = int(now + window)
  if cost == 1 then
    redis.call('ZADD', key, expiry, lease)
  else
    -- 500 members per ZADD: unpack takes a bounded number of values
    local args, n = {}, 0
    for i = 1, cost do
      args[n + 1] = expiry
      args[n + 2] = lease .. ':' .. i
      n = n + 2
      if n == 1000 or i == cost then
        redis.call('ZADD', key, unpack(args, 1, n))
        n = 0
      end
    end
  end
  redis.call('PEXPIRE', key, ttl_ms(window))
end

A['concurrency'] = function(key, limit, window, burst, cost, write)
  local trimmed = redis.pcall('ZREMRANGEBYSCORE', key, int(-now), int(now))
  if type(trimmed) == 'table' then
    -- not a set of leases (a value written by hand, say): nothing is known to be in flight
    if not find(trimmed.err, 'WRONGTYPE', 1, true) then error(trimmed) end
    redis.call('DEL', key)
  end
  local held = redis.call('ZCOUNT', key, '(0', '+inf')
  local avail = limit - held
  if avail < 0 then avail = 0 end
  local soonest = 0
  if held > 0 then
    soonest = tonumber(redis.call('ZRANGEBYSCORE', key, '(0', '+inf', 'WITHSCORES', 'LIMIT', 0, 1)[2]) - now
    if soonest > SECOND then soonest = SECOND end
  end
  if cost > limit then return 0, avail, -1, soonest, soonest, nil end
  if cost > avail then return 0, avail, soonest, soonest, soonest, nil end
  if lease then
    local released = redis.call('ZSCORE', key, lease)
    if released and tonumber(released) < 0 then return 0, avail, -1, soonest, soonest, nil end
  end
  local reset = soonest
  if held == 0 then
    reset = window
    if reset > SECOND then reset = SECOND end
  end
  if write then
    concurrency_take(key, window, cost)
    return 1, avail, 0, reset, soonest, nil
  end
  return 1, avail, 0, reset, soonest, function()
    concurrency_take(key, window, cost)
  end
end
