-- Floor, batched ("floor: batch GET/SET"): get-set-one.lua for a run of calls, as our batch scripts
-- do it. TIME is read once per run; a key is read once (GET) however many calls of the run touch it,
-- the calls after the first reading what the earlier ones left, and written once (SET ... PX) when
-- the run ends. Identical consecutive calls (a burst on a hot key) come as one entry, as ours send
-- them, and get one reply in the form ours gives such an entry when all its calls are admitted: the
-- number of calls, the first call's five integers, then 0 (no resets of their own).
-- KEYS[e]: entry e's key; ARGV[1]: the number of entries; ARGV[2]: the TTL in ms; ARGV[2 + e]: entry
-- e's cost; then pairs (entry, number of calls) for the entries standing for more than one call.
-- The reply is one flat array: per call of one entry, the five integers get-set-one.lua replies.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ttl = ARGV[2]
local reset = tonumber(ttl)
local entries = tonumber(ARGV[1])
local repeats = {}
for r = 3 + entries, #ARGV, 2 do
  repeats[tonumber(ARGV[r])] = tonumber(ARGV[r + 1])
end
local state = {}
local written = {}
local out = {}
local o = 0
for e = 1, entries do
  local key = KEYS[e]
  local v = state[key]
  if v == nil then
    v = tonumber(redis.call('GET', key)) or 0
    written[#written + 1] = key
  end
  if v < now then v = now end
  local cost = tonumber(ARGV[2 + e])
  local n = repeats[e]
  if n then
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5], out[o + 6], out[o + 7] = n, 1, 1, v + cost - now, 0, reset, 0
    o = o + 7
    v = v + cost * n
  else
    v = v + cost
    out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = 1, 1, v - now, 0, reset
    o = o + 5
  end
  state[key] = v
end
for i = 1, #written do
  local key = written[i]
  redis.call('SET', key, string.format('%d', state[key]), 'PX', ttl)
end
return out
