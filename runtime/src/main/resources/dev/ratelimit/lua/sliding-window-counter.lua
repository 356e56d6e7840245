-- sliding-window-counter: the previous window's count weighted by how much of it still overlaps
-- the sliding window, plus the current window's count. The value is "<index>:<previous>:<current>".
-- It is an estimate: see docs (policies page) for its error bound.
A['sliding-window-counter'] = function(key, limit, window, burst, cost)
  local idx = math.floor(now / window)
  local elapsed = now - idx * window
  local prev, cur = 0, 0
  local v = redis.call('GET', key)
  if v then
    local a, b, c = string.match(v, '^(%d+):(%d+):(%d+)$')
    local widx = tonumber(a)
    if widx == idx then
      prev, cur = tonumber(b), tonumber(c)
    elseif widx == idx - 1 then
      prev = tonumber(c)
    end
  end
  -- microseconds until prev * (1 - e / window) + cur <= target, e being the elapsed time
  local function wait(p, c, target)
    if c <= target then
      if p * (1 - elapsed / window) + c <= target + EPS then return 0 end
      return math.max(0, window * (1 - (target - c) / p) - elapsed)
    end
    -- only the next window can help: its previous count is c, its current one 0
    return (window - elapsed) + window * (1 - target / c)
  end
  local estimate = prev * (1 - elapsed / window) + cur
  local avail = math.floor(limit - estimate + EPS)
  if avail < 0 then avail = 0 end
  local reset_now = 0
  if avail < limit then reset_now = wait(prev, cur, limit - avail - 1) end
  if cost > limit then return 0, avail, -1, reset_now, reset_now, nil end
  if estimate + cost > limit + EPS then
    return 0, avail, wait(prev, cur, limit - cost), reset_now, reset_now, nil
  end
  local left = avail - cost
  return 1, avail, 0, wait(prev, cur + cost, limit - left - 1), reset_now, function()
    redis.call('SET', key, int(idx) .. ':' .. prev .. ':' .. (cur + cost), 'PX', ttl_ms(2 * window - elapsed))
  end
end
