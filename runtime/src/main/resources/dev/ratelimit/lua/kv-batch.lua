-- kv_get and kv_set (see the prelude) of a batch: a key is read from Redis once and written once.
-- Decisions of one run read what earlier ones wrote from `pending`, and the last value of every
-- written key goes to Redis when the run ends (kv_flush). A run is atomic, so no other client can
-- tell the difference, and a burst on one hot key costs Redis one GET and one SET per run instead
-- of one per decision.
local batching = true
local pending     -- key -> its value in this run (false: missing)
local pending_ttl -- key written in this run -> the TTL (ms) of its last write that set one (false: none, keep the key's)
local written     -- keys written in this run, in order
local nwritten    -- how many
run_starts[#run_starts + 1] = function()
  pending, pending_ttl, written, nwritten = {}, {}, {}, 0
  window_numbers = {}
end
local function kv_get(key)
  local v = pending[key]
  if v == nil then
    v = redis.pcall('GET', key)
    if type(v) == 'table' then v = not_a_string(v) end
    pending[key] = v
  end
  return v
end
-- a key's first write adds it to `written` and to `pending_ttl` (false without a TTL): one table entry by key, not two
local function kv_set(key, value, ttl)
  if pending_ttl[key] == nil then
    nwritten = nwritten + 1
    written[nwritten] = key
    pending_ttl[key] = ttl or false
  elseif ttl then
    pending_ttl[key] = ttl
  end
  pending[key] = value
end
-- What else a run must write when it ends (an algorithm keeping its own state per run adds to it).
local flush_hooks = {}
local function kv_flush()
  for i = 1, #flush_hooks do
    flush_hooks[i]()
  end
  for i = 1, nwritten do
    local key = written[i]
    kv_write(key, pending[key], pending_ttl[key])
  end
end
