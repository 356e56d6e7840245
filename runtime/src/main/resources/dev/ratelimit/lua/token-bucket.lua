-- token-bucket: holds at most `burst` tokens, refilled continuously at limit/window. The value is
-- "<tokens>:<time of last update>"; a missing key is a full bucket.
A['token-bucket'] = function(key, limit, window, burst, cost)
  local per_token = window / limit
  local tokens = burst
  local v = redis.call('GET', key)
  if v then
    local sep = string.find(v, ':', 1, true)
    local last = tonumber(string.sub(v, sep + 1))
    tokens = math.min(burst, tonumber(string.sub(v, 1, sep - 1)) + math.max(0, now - last) / per_token)
  end
  -- time until the next whole token, from a given fill
  local function next_unit(t)
    if t >= burst - EPS then return 0 end
    return (math.floor(t + EPS) + 1 - t) * per_token
  end
  local avail = math.floor(tokens + EPS)
  if cost > burst then return 0, avail, -1, next_unit(tokens), next_unit(tokens), nil end
  if tokens + EPS < cost then
    return 0, avail, (cost - tokens) * per_token, next_unit(tokens), next_unit(tokens), nil
  end
  local left = tokens - cost
  return 1, avail, 0, next_unit(left), next_unit(tokens), function()
    redis.call('SET', key, string.format('%.17g', left) .. ':' .. int(now), 'PX', ttl_ms((burst - left) * per_token))
  end
end
