-- sliding-window-counter: the previous window's count weighted by how much of it still overlaps
-- the sliding window, plus the current window's count. The value is "<index>:<previous>:<current>".
-- It is an estimate: see docs (policies page) for its error bound.
-- The key expires at the end of the next window (its count is that window's "previous"); a write
-- within the window that set that TTL keeps it (KEEPTTL), sparing Redis an expiry update.
local function sliding_counter_write(key, idx, prev, cur, cost, ttl_us, same_window)
  local value = { idx, prev, cur + cost }
  if same_window then
    kv_set(key, value)
  else
    kv_set(key, value, ttl_ms(ttl_us))
  end
end

-- microseconds until p * (1 - e / window) + c <= target, e being the elapsed time
local function sliding_counter_wait(p, c, target, elapsed, window)
  if c <= target then
    if p * (1 - elapsed / window) + c <= target + EPS then return 0 end
    return max(0, window * (1 - (target - c) / p) - elapsed)
  end
  -- only the next window can help: its previous count is c, its current one 0
  return (window - elapsed) + window * (1 - target / c)
end

A['sliding-window-counter'] = function(key, limit, window, burst, cost, write)
  local idx = floor(now / window)
  local elapsed = now - idx * window
  local prev, cur = 0, 0
  local same_window = false
  local v = kv_get(key)
  if type(v) == 'table' then
    if v[1] == idx then
      prev, cur = v[2], v[3]
      same_window = true
    elseif v[1] == idx - 1 then
      prev = v[3]
    end
  elseif v then
    local a, b, c = string.match(v, '^(%d+):(%d+):(%d+)$')
    local widx = tonumber(a)
    if widx == idx then
      prev, cur = tonumber(b), tonumber(c)
      same_window = true
    elseif widx == idx - 1 then
      prev = tonumber(c)
    end
  end
  local estimate = prev * (1 - elapsed / window) + cur
  local avail = floor(limit - estimate + EPS)
  if avail < 0 then avail = 0 end
  local reset_now = 0
  if avail < limit then reset_now = sliding_counter_wait(prev, cur, limit - avail - 1, elapsed, window) end
  if cost > limit then return 0, avail, -1, reset_now, reset_now, nil end
  if estimate + cost > limit + EPS then
    return 0, avail, sliding_counter_wait(prev, cur, limit - cost, elapsed, window), reset_now, reset_now, nil
  end
  local left = avail - cost
  local reset = sliding_counter_wait(prev, cur + cost, limit - left - 1, elapsed, window)
  local ttl_us = 2 * window - elapsed
  if write then
    sliding_counter_write(key, idx, prev, cur, cost, ttl_us, same_window)
    return 1, avail, 0, reset, reset_now, nil
  end
  return 1, avail, 0, reset, reset_now, function()
    sliding_counter_write(key, idx, prev, cur, cost, ttl_us, same_window)
  end
end
