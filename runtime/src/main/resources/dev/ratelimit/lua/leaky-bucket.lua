-- leaky-bucket (as a meter): every admitted unit adds to a level that drains at limit/window; a
-- request is admitted while the level plus its cost stays within `burst`. The state is one number,
-- the time at which the bucket will have drained: level = (drained_at - now) / per_unit. A missing
-- key or a time in the past is an empty bucket.
A['leaky-bucket'] = function(key, limit, window, burst, cost, write)
  local per_unit = window / limit
  local drained_at = now
  local v = kv_get(key)
  if v then drained_at = max(now, tonumber(v)) end
  local level = (drained_at - now) / per_unit
  -- time until room for one more whole unit, from a given level
  local function next_unit(l)
    if l <= EPS then return 0 end
    local room = floor(burst - l + EPS)
    return max(0, (l - (burst - room - 1)) * per_unit)
  end
  local avail = floor(burst - level + EPS)
  if cost > burst then return 0, avail, -1, next_unit(level), next_unit(level), nil end
  if level + cost > burst + EPS then
    return 0, avail, (level + cost - burst) * per_unit, next_unit(level), next_unit(level), nil
  end
  local filled = level + cost
  local value, ttl = drained_at + cost * per_unit, ttl_ms(filled * per_unit)
  if write then
    kv_set(key, value, ttl)
    return 1, avail, 0, next_unit(filled), next_unit(level), nil
  end
  return 1, avail, 0, next_unit(filled), next_unit(level), function()
    kv_set(key, value, ttl)
  end
end
