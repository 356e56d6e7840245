-- gcra (generic cell rate algorithm): one number per key, the theoretical arrival time (TAT) of
-- the next request. Emission interval T = window/limit, tolerance = burst * T. A missing key or a
-- TAT in the past means an idle key.

-- Time until the next unit can be admitted for a given TAT (0: one can be now). A function of its
-- own rather than a closure made on every decision.
local function gcra_next(t, interval, tolerance)
  if t <= now then return 0 end
  local free = (now + tolerance - t) / interval
  return (floor(free + EPS) + 1 - free) * interval
end

A['gcra'] = function(key, limit, window, burst, cost, write)
  local interval = window / limit
  local tolerance = burst * interval
  local tat = now
  local v = kv_get(key)
  if v then tat = max(now, tonumber(v)) end
  -- units that could be admitted at once
  local avail = floor((now + tolerance - tat) / interval + EPS)
  local next_now = gcra_next(tat, interval, tolerance)
  if cost > burst then return 0, avail, -1, next_now, next_now, nil end
  local new_tat = tat + cost * interval
  local allow_at = new_tat - tolerance
  if allow_at > now + EPS * interval then
    return 0, avail, allow_at - now, next_now, next_now, nil
  end
  if write then
    kv_set(key, new_tat, ttl_ms(new_tat - now))
    return 1, avail, 0, gcra_next(new_tat, interval, tolerance), next_now, nil
  end
  return 1, avail, 0, gcra_next(new_tat, interval, tolerance), next_now, function()
    kv_set(key, new_tat, ttl_ms(new_tat - now))
  end
end
