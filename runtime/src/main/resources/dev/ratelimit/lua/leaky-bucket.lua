-- leaky-bucket (as a meter): every admitted unit adds to a level that drains at limit/window; a
-- request is admitted while the level plus its cost stays within `burst`. The state is one number,
-- the time at which the bucket will have drained: level = (drained_at - now) / per_unit. A missing
-- key or a time in the past is an empty bucket.

-- Time until room for one more whole unit, from a given level. A function of its own rather than a
-- closure made on every decision.
local function leaky_next(l, burst, per_unit)
  if l <= EPS then return 0 end
  local room = floor(burst - l + EPS)
  return max(0, (l - (burst - room - 1)) * per_unit)
end

A['leaky-bucket'] = function(key, limit, window, burst, cost, write)
  local per_unit = window / limit
  local drained_at = now
  local v = kv_get(key)
  if v then drained_at = max(now, tonumber(v)) end
  local level = (drained_at - now) / per_unit
  local avail = floor(burst - level + EPS)
  local next_now = leaky_next(level, burst, per_unit)
  if cost > burst then return 0, avail, -1, next_now, next_now, nil end
  if level + cost > burst + EPS then
    return 0, avail, (level + cost - burst) * per_unit, next_now, next_now, nil
  end
  local filled = level + cost
  local value, ttl = drained_at + cost * per_unit, ttl_ms(filled * per_unit)
  if write then
    kv_set(key, value, ttl)
    return 1, avail, 0, leaky_next(filled, burst, per_unit), next_now, nil
  end
  return 1, avail, 0, leaky_next(filled, burst, per_unit), next_now, function()
    kv_set(key, value, ttl)
  end
end
