-- The transport's own limit, batched ("floor: batch return 1"): a run of calls that touch no key,
-- each replied with one small integer. A call sent alone runs `return 1`. Identical consecutive calls
-- (a burst on a hot key) come as one entry, as ours send them, and get one integer: their number.
-- KEYS: one per entry (passed, never read); ARGV[1]: the number of entries; then pairs (entry, number
-- of calls) for the entries standing for more than one call.
local out = {}
for e = 1, tonumber(ARGV[1]) do
  out[e] = 1
end
for r = 2, #ARGV, 2 do
  out[tonumber(ARGV[r])] = tonumber(ARGV[r + 1])
end
return out
