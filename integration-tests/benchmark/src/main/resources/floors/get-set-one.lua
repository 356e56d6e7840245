-- Floor, one decision per call ("floor: one GET/SET"): the least a limiter deciding in Redis does for
-- a decision sent alone. It reads the clock (TIME), reads the key's state (GET), writes it back with
-- an expiry (SET ... PX) and replies as wide as a decision of ours: admitted, then for its one key
-- admitted, remaining, retry-after ms, reset ms. The state is a time, as a bucket's or GCRA's is: at
-- least now, pushed `cost` microseconds further. It never denies: no limit is checked.
-- KEYS[1]: the key; ARGV[1]: its TTL in ms; ARGV[2]: the cost.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local v = tonumber(redis.call('GET', KEYS[1])) or 0
if v < now then v = now end
v = v + tonumber(ARGV[2])
redis.call('SET', KEYS[1], string.format('%d', v), 'PX', ARGV[1])
return { 1, 1, v - now, 0, tonumber(ARGV[1]) }
