-- sliding-window-log: a sorted set of admitted requests scored by their time. At most `limit`
-- entries in any interval of length `window`; only admitted requests are logged, so the set never
-- holds more than `limit` members.
A['sliding-window-log'] = function(key, limit, window, burst, cost)
  -- an entry logged at s counts while now - s < window
  redis.call('ZREMRANGEBYSCORE', key, '-inf', int(now - window))
  local count = redis.call('ZCARD', key)
  local function expiry_of(rank)
    local e = redis.call('ZRANGE', key, rank, rank, 'WITHSCORES')
    return tonumber(e[2]) + window - now
  end
  local reset_now = 0
  if count > 0 then reset_now = expiry_of(0) end
  if cost > limit then return 0, limit - count, -1, reset_now, reset_now, nil end
  if count + cost > limit then
    -- admitted once the (count + cost - limit) oldest entries have left the window
    return 0, limit - count, expiry_of(count + cost - limit - 1), reset_now, reset_now, nil
  end
  local reset = window
  if count > 0 then reset = reset_now end
  return 1, limit - count, 0, reset, reset_now, function()
    local args = {}
    local stamp = int(now)
    -- members are unique: the time plus the set's size at insertion, which only grows at a given time
    for i = 1, cost do
      args[#args + 1] = stamp
      args[#args + 1] = stamp .. ':' .. (count + i)
    end
    redis.call('ZADD', key, unpack(args))
    redis.call('PEXPIRE', key, ttl_ms(window))
  end
end
