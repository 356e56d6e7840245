-- kv_get and kv_set (see the prelude) of a script deciding one call: GET and SET.
local batching = false
local function kv_get(key)
  local v = redis.pcall('GET', key)
  if type(v) == 'table' then return not_a_string(v) end
  return v
end
local kv_set = kv_write
-- only a batch writes anything when a run ends (see kv-batch.lua)
local flush_hooks
