-- Floor, batched ("floor: batch GET/SET"): get-set-one.lua for a run of calls, as our batch scripts
-- do it. TIME is read once per run; a key is read once (GET) however many calls of the run touch it,
-- the calls after the first reading what the earlier ones left, and written once (SET ... PX) when
-- the run ends. The reply is one flat array: per call, the five integers get-set-one.lua replies.
-- KEYS[c]: call c's key; ARGV[1]: the number of calls; ARGV[2]: the TTL in ms; ARGV[2 + c]: call
-- c's cost.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ttl = ARGV[2]
local reset = tonumber(ttl)
local state = {}
local written = {}
local out = {}
local o = 0
for c = 1, tonumber(ARGV[1]) do
  local key = KEYS[c]
  local v = state[key]
  if v == nil then
    v = tonumber(redis.call('GET', key)) or 0
    written[#written + 1] = key
  end
  if v < now then v = now end
  v = v + tonumber(ARGV[2 + c])
  state[key] = v
  out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = 1, 1, v - now, 0, reset
  o = o + 5
end
for i = 1, #written do
  local key = written[i]
  redis.call('SET', key, string.format('%d', state[key]), 'PX', ttl)
end
return out
