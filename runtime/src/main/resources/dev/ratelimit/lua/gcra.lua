-- gcra (generic cell rate algorithm): one number per key, the theoretical arrival time (TAT) of
-- the next request. Emission interval T = window/limit, tolerance = burst * T. A missing key or a
-- TAT in the past means an idle key.
A['gcra'] = function(key, limit, window, burst, cost, write)
  local interval = window / limit
  local tolerance = burst * interval
  local tat = now
  local v = kv_get(key)
  if v then tat = max(now, tonumber(v)) end
  -- units that could be admitted at once for a given TAT
  local function units(t)
    return floor((now + tolerance - t) / interval + EPS)
  end
  local function next_unit(t)
    if t <= now then return 0 end
    local free = (now + tolerance - t) / interval
    return (floor(free + EPS) + 1 - free) * interval
  end
  local avail = units(tat)
  if cost > burst then return 0, avail, -1, next_unit(tat), next_unit(tat), nil end
  local new_tat = tat + cost * interval
  local allow_at = new_tat - tolerance
  if allow_at > now + EPS * interval then
    return 0, avail, allow_at - now, next_unit(tat), next_unit(tat), nil
  end
  if write then
    kv_set(key, new_tat, ttl_ms(new_tat - now))
    return 1, avail, 0, next_unit(new_tat), next_unit(tat), nil
  end
  return 1, avail, 0, next_unit(new_tat), next_unit(tat), function()
    kv_set(key, new_tat, ttl_ms(new_tat - now))
  end
end
