-- Frees the concurrency slots of one call (see concurrency.lua): ARGV[1] is its lease, then per key
-- the cost it was charged. A lease already gone (expired, or never taken because the call was
-- denied) is no error. Replies the number of members removed. The build composes it as the other
-- scripts (see the prelude), without the prelude: it keeps no state between calls.
local function main()
  local lease = ARGV[1]
  local removed = 0
  for k = 1, #KEYS do
    local cost = tonumber(ARGV[k + 1])
    local members = { lease }
    if cost > 1 then
      members = {}
      for i = 1, cost do members[i] = lease .. ':' .. i end
    end
    for i = 1, #members, 1000 do
      local r = redis.pcall('ZREM', KEYS[k], unpack(members, i, math.min(i + 999, #members)))
      if type(r) == 'number' then removed = removed + r end
    end
  end
  return removed
end
