-- Frees the concurrency slots of one call (see concurrency.lua): ARGV[1] is its lease, ARGV[2] the
-- time in microseconds ('' to read Redis TIME, as the decisions do), then per key the cost it was
-- charged and the policy's window in microseconds. A lease already gone (expired, or
-- never taken because the call was denied) is no error; a lease not found leaves a tombstone for a
-- window, so that a charge of it still on its way is refused (see concurrency.lua). Replies the
-- number of members removed. The build composes it as the other scripts (see the prelude), without
-- the prelude: it keeps no state between calls.
-- A tombstone's key lives at least a window, in whole milliseconds rounded up.
local function tombstone_ttl_ms(window)
  return math.ceil(window / 1000)
end

local function main()
  local lease = ARGV[1]
  local removed = 0
  local now = tonumber(ARGV[2])
  for k = 1, #KEYS do
    local cost = tonumber(ARGV[2 * k + 1])
    local members = { lease }
    if cost > 1 then
      members = {}
      for i = 1, cost do members[i] = lease .. ':' .. i end
    end
    local found = 0
    -- a tombstone is the member "<lease>" itself, scored below zero: it stays (renewed below), never counted freed
    local score = redis.pcall('ZSCORE', KEYS[k], lease)
    if type(score) == 'string' and tonumber(score) < 0 then members = {} end
    for i = 1, #members, 1000 do
      local r = redis.pcall('ZREM', KEYS[k], unpack(members, i, math.min(i + 999, #members)))
      if type(r) == 'number' then found = found + r end
    end
    removed = removed + found
    local window = tonumber(ARGV[2 * k + 2])
    if found == 0 and window then
      if not now then
        local t = redis.call('TIME')
        now = tonumber(t[1]) * 1000000 + tonumber(t[2])
      end
      -- not a sorted set (a value written by hand): nothing of ours to guard
      if type(redis.pcall('ZADD', KEYS[k], string.format('%d', -(now + window)), lease)) == 'number' then
        local ttl = tombstone_ttl_ms(window)
        if redis.call('PTTL', KEYS[k]) < ttl then redis.call('PEXPIRE', KEYS[k], ttl) end
      end
    end
  end
  return removed
end
