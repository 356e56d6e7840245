-- Anchor: the two-key sliding window counter (one counter per window, the previous one weighted).
-- KEYS[1]: this window's counter, KEYS[2]: the previous window's (the client puts the window index
-- in the names); ARGV: limit, window in ms, ms elapsed in this window.
local limit, window, elapsed = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local prev = tonumber(redis.call('GET', KEYS[2]) or '0')
if prev * (1 - elapsed / window) + cur + 1 > limit then return { 0, cur } end
cur = redis.call('INCR', KEYS[1])
if cur == 1 then redis.call('PEXPIRE', KEYS[1], 2 * window) end
return { 1, cur }
