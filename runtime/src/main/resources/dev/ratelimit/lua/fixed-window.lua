-- fixed-window: windows aligned to multiples of the window on the Redis clock. The value is
-- "<window index>:<count>" so that a count left over from the previous window is never read
-- as this window's (a plain counter would depend on the key expiring exactly on time).
-- The key expires when its window ends. The first write of a window sets that TTL; the others
-- keep it (KEEPTTL): the end of the window has not moved, and Redis is spared an expiry update.
-- A value another algorithm wrote counts as the units it holds (see units_held) and is replaced.
A['fixed-window'] = function(key, limit, window, burst, cost, write)
  local idx = floor(now / window)
  local count = 0
  local keep_ttl = false
  local v = kv_get(key)
  if v then
    local i, _, c = window_parse(v)
    if c then
      if i == idx then
        count = c
        keep_ttl = count > 0
      end
    else
      count = units_held(v, key, limit, window)
      if count > limit then count = limit end
    end
  end
  local left = (idx + 1) * window - now
  local reset_now = left
  if count == 0 then reset_now = 0 end
  if cost > limit then return 0, limit - count, -1, left, reset_now, nil end
  if count + cost > limit then return 0, limit - count, left, left, reset_now, nil end
  if write then
    if keep_ttl then
      kv_set(key, { idx, count + cost })
    else
      kv_set(key, { idx, count + cost }, ttl_ms(left))
    end
    return 1, limit - count, 0, left, reset_now, nil
  end
  return 1, limit - count, 0, left, reset_now, function()
    if keep_ttl then
      kv_set(key, { idx, count + cost })
    else
      kv_set(key, { idx, count + cost }, ttl_ms(left))
    end
  end
end
-- the count grows by exactly the cost and the window's end does not move (see decide_same in batch.lua)
LINEAR[A['fixed-window']] = true

-- A refund (see settle in decide.lua): the count of the window the reservation was charged in falls by
-- `units` (not below 0), the window's end unchanged; a window since replaced keeps what it counted.
R['fixed-window'] = function(key, limit, window, burst, at, units)
  local v = kv_get(key)
  if not v then return end
  local i, _, c, counter = window_parse(v)
  if not c or counter or i ~= floor(at / window) then return end
  c = c - units
  if c < 0 then c = 0 end
  kv_set(key, { i, c })
end

-- A debit: the current window counts `units` more, up to twice the limit (a debt of one capacity, which the
-- window's end forgives).
D['fixed-window'] = function(key, limit, window, burst, units)
  local idx = floor(now / window)
  local count = 0
  local v = kv_get(key)
  if v then
    local i, _, c, counter = window_parse(v)
    if c and not counter and i == idx then count = c end
  end
  local total = count + units
  if total > 2 * limit then total = 2 * limit end
  if count > 0 then
    kv_set(key, { idx, total })
  else
    kv_set(key, { idx, total }, ttl_ms((idx + 1) * window - now))
  end
end
