-- token-bucket: holds at most `burst` tokens, refilled continuously at limit/window. The state is
-- one number, the time at which the bucket was (or will be) empty if nothing else happens:
-- tokens = (now - empty_at) / per_token, capped at burst. One number instead of "tokens and last
-- update" keeps the key small (an integer when window/limit is a whole number of microseconds).
-- A missing key is a full bucket.

-- Time until the next whole token, from a given fill. A function of its own rather than a closure
-- made on every decision.
local function bucket_next(t, burst, per_token)
  if t >= burst - EPS then return 0 end
  return (floor(t + EPS) + 1 - t) * per_token
end

A['token-bucket'] = function(key, limit, window, burst, cost, write)
  local per_token = window / limit
  -- an empty time this early means a full bucket; earlier ones earn nothing more
  local full = now - burst * per_token
  local empty_at = full
  local v = kv_get(key)
  if v then empty_at = max(full, tonumber(v)) end
  local tokens = (now - empty_at) / per_token
  local avail = floor(tokens + EPS)
  local next_now = bucket_next(tokens, burst, per_token)
  if cost > burst then return 0, avail, -1, next_now, next_now, nil end
  if tokens + EPS < cost then
    return 0, avail, (cost - tokens) * per_token, next_now, next_now, nil
  end
  local left = tokens - cost
  local value, ttl = empty_at + cost * per_token, ttl_ms((burst - left) * per_token)
  if write then
    kv_set(key, value, ttl)
    return 1, avail, 0, bucket_next(left, burst, per_token), next_now, nil
  end
  return 1, avail, 0, bucket_next(left, burst, per_token), next_now, function()
    kv_set(key, value, ttl)
  end
end
