-- The transport's own limit, batched ("floor: batch return 1"): a run of calls that touch no key,
-- each replied with one small integer. A call sent alone runs `return 1`.
-- KEYS: one per call (passed, never read); ARGV[1]: the number of calls.
local out = {}
for c = 1, tonumber(ARGV[1]) do
  out[c] = 1
end
return out
