-- sliding-window-log: a sorted set of admitted requests scored by their time. At most `limit`
-- entries in any interval of length `window`; only admitted requests are logged, so the set never
-- holds more than `limit` members.
local function sliding_log_write(key, window, count, cost)
  local stamp = int(now)
  -- members are unique: the time plus the set's size at insertion, which only grows at a given time
  if cost == 1 then
    redis.call('ZADD', key, stamp, stamp .. ':' .. (count + 1))
  else
    local args = {}
    for i = 1, cost do
      args[2 * i - 1] = stamp
      args[2 * i] = stamp .. ':' .. (count + i)
    end
    redis.call('ZADD', key, unpack(args))
  end
  redis.call('PEXPIRE', key, ttl_ms(window))
end

A['sliding-window-log'] = function(key, limit, window, burst, cost, write)
  -- an entry logged at s counts while now - s < window
  redis.call('ZREMRANGEBYSCORE', key, '-inf', int(now - window))
  local count = redis.call('ZCARD', key)
  local reset_now = 0
  if count > 0 then
    local e = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    reset_now = tonumber(e[2]) + window - now
  end
  if cost > limit then return 0, limit - count, -1, reset_now, reset_now, nil end
  if count + cost > limit then
    -- admitted once the (count + cost - limit) oldest entries have left the window
    local rank = count + cost - limit - 1
    local e = redis.call('ZRANGE', key, rank, rank, 'WITHSCORES')
    return 0, limit - count, tonumber(e[2]) + window - now, reset_now, reset_now, nil
  end
  local reset = window
  if count > 0 then reset = reset_now end
  if write then
    sliding_log_write(key, window, count, cost)
    return 1, limit - count, 0, reset, reset_now, nil
  end
  return 1, limit - count, 0, reset, reset_now, function()
    sliding_log_write(key, window, count, cost)
  end
end
