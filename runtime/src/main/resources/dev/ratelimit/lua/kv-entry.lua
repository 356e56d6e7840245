-- kv_get and kv_set (see the prelude) of a script deciding one call: GET and SET.
local batching = false
local function kv_get(key)
  return redis.call('GET', key)
end
local kv_set = kv_write
