-- fixed-window: windows aligned to multiples of the window on the Redis clock. The value is
-- "<window index>:<count>" so that a count left over from the previous window is never read
-- as this window's (a plain counter would depend on the key expiring exactly on time).
-- The key expires when its window ends. The first write of a window sets that TTL; the others
-- keep it (KEEPTTL): the end of the window has not moved, and Redis is spared an expiry update.
local function fixed_window_write(key, idx, count, cost, left)
  if count > 0 then
    kv_set(key, { idx, count + cost })
  else
    kv_set(key, { idx, cost }, ttl_ms(left))
  end
end

A['fixed-window'] = function(key, limit, window, burst, cost, write)
  local idx = floor(now / window)
  local count = 0
  local v = kv_get(key)
  if type(v) == 'table' then
    if v[1] == idx then count = v[2] end
  elseif v then
    local sep = find(v, ':', 1, true)
    if sep and tonumber(sub(v, 1, sep - 1)) == idx then
      count = tonumber(sub(v, sep + 1))
    end
  end
  local left = (idx + 1) * window - now
  local reset_now = left
  if count == 0 then reset_now = 0 end
  if cost > limit then return 0, limit - count, -1, left, reset_now, nil end
  if count + cost > limit then return 0, limit - count, left, left, reset_now, nil end
  if write then
    fixed_window_write(key, idx, count, cost, left)
    return 1, limit - count, 0, left, reset_now, nil
  end
  return 1, limit - count, 0, left, reset_now, function()
    fixed_window_write(key, idx, count, cost, left)
  end
end
