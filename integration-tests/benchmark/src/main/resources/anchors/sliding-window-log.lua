-- Anchor: the textbook sliding log in a sorted set (ZREMRANGEBYSCORE, ZCARD, ZADD, PEXPIRE).
-- KEYS[1]: the log; ARGV: limit, window in microseconds.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%d', now - window))
local count = redis.call('ZCARD', KEYS[1])
if count >= tonumber(ARGV[1]) then return { 0, count } end
local stamp = string.format('%d', now)
redis.call('ZADD', KEYS[1], stamp, stamp .. ':' .. count)
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
return { 1, count + 1 }
