-- leaky-bucket (as a meter): every admitted unit adds to a level that drains at limit/window; a
-- request is admitted while the level plus its cost stays within `burst`. The value is
-- "<level>:<time of last update>"; a missing key is an empty bucket.
A['leaky-bucket'] = function(key, limit, window, burst, cost)
  local per_unit = window / limit
  local level = 0
  local v = redis.call('GET', key)
  if v then
    local sep = string.find(v, ':', 1, true)
    local last = tonumber(string.sub(v, sep + 1))
    level = math.max(0, tonumber(string.sub(v, 1, sep - 1)) - math.max(0, now - last) / per_unit)
  end
  -- time until room for one more whole unit, from a given level
  local function next_unit(l)
    if l <= EPS then return 0 end
    local room = math.floor(burst - l + EPS)
    return math.max(0, (l - (burst - room - 1)) * per_unit)
  end
  local avail = math.floor(burst - level + EPS)
  if cost > burst then return 0, avail, -1, next_unit(level), next_unit(level), nil end
  if level + cost > burst + EPS then
    return 0, avail, (level + cost - burst) * per_unit, next_unit(level), next_unit(level), nil
  end
  local filled = level + cost
  return 1, avail, 0, next_unit(filled), next_unit(level), function()
    redis.call('SET', key, string.format('%.17g', filled) .. ':' .. int(now), 'PX', ttl_ms(filled * per_unit))
  end
end
