-- A script deciding several independent calls, one after the other, in one atomic run: what the
-- client sends when calls arrive faster than Redis answers them (one script run instead of one per
-- call). ARGV[1]: the number of calls; ARGV[2]: the number of policies the run names, then each
-- policy's five fixed values (algorithm, limit, window, burst, shadow) once; then, per call, its
-- number of policies, its time and mode, and per policy the index of the policy (from 1) and the
-- cost. The keys are the calls' keys, in the same order.
-- When every call of the run has one policy, one time and is charged (no lease), the calls after
-- the policies are 'S' followed by that time ('S' alone: Redis TIME, as the extension sends it),
-- then one value per call: the policy's index plus the number of policies times (cost - 1). Redis turns every argument into a Lua string before the script runs:
-- one argument per call instead of five is about 0.3 us less per decision.
-- Reply: one flat array, per call in order the 1 + 4n integers decide writes for its n policies;
-- a call that failed has an error in its first place and zeros after it.
local policies = {}
local a = 2
for i = 1, tonumber(ARGV[2]) do
  policies[i] = { ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), ARGV[a + 5] }
  a = a + 5
end
local out = {}
local o = 0
local k = 0
local calls = tonumber(ARGV[1])

-- A call that failed has an error in its first place and zeros after it.
local function failed(ok, err, o, n)
  if ok and err then
    ok = false
  elseif not ok and not (type(err) == 'table' and err.err) then
    err = redis.error_reply(tostring(err))
  end
  if not ok then
    out[o + 1] = err
    for i = o + 2, o + 1 + 4 * n do out[i] = 0 end
  end
end

-- Decides `n` identical calls of a compact run (one key, policy and cost, one instant), writing their
-- replies from out[o + 1]. A denial changes nothing, so the calls after a denied one are denied alike;
-- with a linear algorithm (see LINEAR in the prelude) the admitted ones are charged together. A burst
-- on a hot key (dozens of calls per run) costs 2 or 3 decisions instead of one per call.
local function decide_same(key, p, cost, n, o)
  local linear = LINEAR[A[p[1]]]
  local last = o + 5 * (n - 1)
  while o <= last do
    local ok, err = pcall(decide_one, key, p[1], p[2], p[3], p[4], p[5], cost, false, false, out, o)
    if not ok or err then
      failed(ok, err, o, 1)
    elseif out[o + 2] ~= 1 then
      for q = o + 5, last, 5 do
        out[q + 1], out[q + 2], out[q + 3], out[q + 4], out[q + 5] = out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5]
      end
      return
    elseif linear then
      -- each admission leaves `cost` units fewer and the same reset: charge what fits at once
      local left = out[o + 3]
      local more = floor(left / cost)
      if more > (last - o) / 5 then more = (last - o) / 5 end
      if more > 0 then
        local q = o + 5 * more
        ok, err = pcall(decide_one, key, p[1], p[2], p[3], p[4], p[5], cost * more, false, false, out, q)
        if not ok or err or out[q + 2] ~= 1 then
          -- cannot happen with a linear algorithm: fail these calls rather than guess their replies
          err = err or redis.error_reply('ERR rate-limit burst not admitted')
          for f = o + 5, q, 5 do failed(false, err, f, 1) end
        else
          local all, reset = out[o + 1], out[o + 5]
          local reset_of = linear ~= true and linear
          for f = o + 5, q, 5 do
            left = left - cost
            out[f + 1], out[f + 2], out[f + 3], out[f + 4], out[f + 5] = all, 1, left, 0,
              reset_of and reset_of(key, p[2], p[3], left) or reset
          end
        end
        o = q
      end
    end
    o = o + 5
  end
end

local compact = ARGV[a + 1]
if sub(compact, 1, 1) == 'S' then
  set_clock(sub(compact, 2))
  local np = #policies
  local c = 1
  while c <= calls do
    local key, arg = KEYS[c], ARGV[a + 1 + c]
    local n = 1
    while c + n <= calls and KEYS[c + n] == key and ARGV[a + 1 + c + n] == arg do n = n + 1 end
    local v = tonumber(arg) - 1
    local i = v % np
    local p = policies[i + 1]
    local cost = (v - i) / np + 1
    if n == 1 then
      local ok, err = pcall(decide_one, key, p[1], p[2], p[3], p[4], p[5], cost, false, false, out, o)
      if not ok or err then failed(ok, err, o, 1) end
    else
      decide_same(key, p, cost, n, o)
    end
    o = o + 5 * n
    c = c + n
  end
  kv_flush()
  return out
end

for c = 1, calls do
  local n = tonumber(ARGV[a + 1])
  -- a call that fails (a key of the wrong type, say) fails alone, as it would outside a batch
  local ok, err = pcall(decide, k, n, a + 1, policies, out, o)
  if not ok or err then failed(ok, err, o, n) end
  k = k + n
  a = a + 3 + 2 * n
  o = o + 1 + 4 * n
end
kv_flush()
return out
