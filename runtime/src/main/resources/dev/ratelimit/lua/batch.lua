-- A script deciding several independent calls, one after the other, in one atomic run: what the
-- client sends when calls arrive faster than Redis answers them (one script run instead of one per
-- call). ARGV[1]: the number of calls; ARGV[2]: the number of policies the run names, then each
-- policy's five fixed values (algorithm, limit, window, burst, shadow) once; then, per call, its
-- number of policies, its time and mode, and per policy the index of the policy (from 1) and the
-- cost. The keys are the calls' keys, in the same order.
-- Reply: one reply per call, in order, each as decide gives it, or an error for a call that failed.
batching = true
local policies = {}
local a = 2
for i = 1, tonumber(ARGV[2]) do
  policies[i] = { ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), ARGV[a + 5] }
  a = a + 5
end
local out = {}
local k = 0
for c = 1, tonumber(ARGV[1]) do
  local n = tonumber(ARGV[a + 1])
  -- a call that fails (a key of the wrong type, say) fails alone, as it would outside a batch
  local ok, reply = pcall(decide, k, n, a + 1, policies)
  if ok then
    out[c] = reply
  elseif type(reply) == 'table' and reply.err then
    out[c] = reply
  else
    out[c] = redis.error_reply(tostring(reply))
  end
  k = k + n
  a = a + 3 + 2 * n
end
kv_flush()
return out
