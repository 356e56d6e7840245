-- Anchor: a one-key GCRA (like redis-cell or go-redis/redis_rate): the theoretical arrival time
-- in microseconds. KEYS[1]: the key; ARGV: emission interval, tolerance (burst * interval), in us.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local new_tat = tat + interval
if new_tat - tolerance > now then return { 0, 0 } end
redis.call('SET', KEYS[1], string.format('%d', new_tat), 'PX', math.ceil((new_tat - now) / 1000))
return { 1, 0 }
