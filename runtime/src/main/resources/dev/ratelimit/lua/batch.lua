-- A script deciding several independent calls, one after the other, in one atomic run: what the
-- client sends when calls arrive faster than Redis answers them (one script run instead of one per
-- call). ARGV[1]: the number of calls; then, per call, its number of policies followed by its
-- arguments as decide takes them. The keys are the calls' keys, in the same order.
-- Reply: one reply per call, in order, each as decide gives it, or an error for a call that failed.
batching = true
local out = {}
local k, a = 0, 1
for c = 1, tonumber(ARGV[1]) do
  local n = tonumber(ARGV[a + 1])
  -- a call that fails (a key of the wrong type, say) fails alone, as it would outside a batch
  local ok, reply = pcall(decide, k, n, a + 1)
  if ok then
    out[c] = reply
  elseif type(reply) == 'table' and reply.err then
    out[c] = reply
  else
    out[c] = redis.error_reply(tostring(reply))
  end
  k = k + n
  a = a + 3 + 6 * n
end
kv_flush()
return out
