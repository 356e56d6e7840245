-- Anchor: the two-key token bucket of Spring Cloud Gateway's RedisRateLimiter
-- (request_rate_limiter.lua): tokens and last refill time in two keys, both rewritten with SETEX.
-- KEYS[1]: tokens, KEYS[2]: timestamp; ARGV: rate per second, capacity, (unused), requested.
local tokens_key = KEYS[1]
local timestamp_key = KEYS[2]
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local now = redis.call('TIME')[1]
local requested = tonumber(ARGV[4])
local fill_time = capacity / rate
local ttl = math.floor(fill_time * 2)
if ttl < 1 then ttl = 1 end
local last_tokens = tonumber(redis.call('get', tokens_key))
if last_tokens == nil then last_tokens = capacity end
local last_refreshed = tonumber(redis.call('get', timestamp_key))
if last_refreshed == nil then last_refreshed = 0 end
local delta = math.max(0, now - last_refreshed)
local filled_tokens = math.min(capacity, last_tokens + (delta * rate))
local allowed = filled_tokens >= requested
local new_tokens = filled_tokens
local allowed_num = 0
if allowed then
  new_tokens = filled_tokens - requested
  allowed_num = 1
end
if ttl > 0 then
  redis.call('setex', tokens_key, ttl, new_tokens)
  redis.call('setex', timestamp_key, ttl, now)
end
return { allowed_num, new_tokens }
