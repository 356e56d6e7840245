-- Anchor: the textbook fixed window (GET, INCR, PEXPIRE on first use). KEYS[1]: the window's key
-- (the client puts the window index in it); ARGV: limit, window in ms.
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count + 1 > tonumber(ARGV[1]) then return { 0, count } end
count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return { 1, count }
