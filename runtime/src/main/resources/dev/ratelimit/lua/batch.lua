-- A script deciding several independent calls, one after the other, in one atomic run: what the
-- client sends when calls arrive faster than Redis answers them (one script run instead of one per
-- call). ARGV[1]: the number of calls; ARGV[2]: the number of policies the run names, then each
-- policy's five fixed values (algorithm, limit, window, burst, shadow) once; then, per call, its
-- number of policies, its time and mode, and per policy the index of the policy (from 1) and the
-- cost. The keys are the calls' keys, in the same order.
-- When every call of the run has one policy, one time and is charged (no lease), the run is compact:
-- after the policies comes 'S' followed by that time ('S' alone: Redis TIME, as the extension sends
-- it), then one value per entry: the policy's index plus the number of policies times (cost - 1).
-- Redis turns every argument into a Lua string before the script runs: one argument per call instead
-- of five is about 0.3 us less per decision. An entry is one call, or several identical consecutive
-- calls sent once (see decide_same); ARGV[1] and the keys then count entries, and after the values
-- come pairs (entry, number of calls) for the entries standing for more than one.
-- On a Redis Cluster a run holds the calls of one node, whose keys may be of several slots: it then names one
-- key (KEYS[1], which routes it to its node), and its arguments start with '@' followed by the number n of its
-- keys, then those n keys, then the arguments above. Redis lets a script touch keys it did not name when they
-- are of this node (a script loaded by EVAL or SCRIPT LOAD without flags, as the extension sends on a cluster);
-- a call whose key is not, after a resharding, fails alone and the client sends it again on its own.
-- Reply: one flat array, per call in order the 1 + 4n integers decide writes for its n policies (2n more
-- when one of them has overrides; per entry of several calls, the form decide_same describes); a call that
-- failed has an error in its first place and zeros after it. A compact run names no policy with overrides.
-- The reply of the run being decided.
local out

-- A call that failed has an error in its first place and zeros after it, to its width `w`.
local function failed(ok, err, o, w)
  if ok and err then
    ok = false
  elseif not ok and not (type(err) == 'table' and err.err) then
    err = redis.error_reply(tostring(err))
  end
  if not ok then
    out[o + 1] = err
    for i = o + 2, o + w do out[i] = 0 end
  end
end

-- Decides the `n` identical calls (n > 1) of one entry of a compact run (one key, policy and cost, one
-- instant: a burst on a hot key, which the client sends once) and writes their reply from out[o + 1];
-- returns where it ends. A denial changes nothing, so the calls after a denied one are denied alike; the
-- admissions of a compact algorithm being linear (see LINEAR in the prelude), those that fit are charged
-- in one decision. A burst costs 2 or 3 decisions and a reply of 7 to 12 + n integers, not 5 per call:
--   m, the number of calls admitted (the first m);
--   the first call's five integers;
--   d, then d resets: 0 when every admitted call's reset is the first's, else m - 1, those of calls 2..m;
--   when 0 < m < n, the five integers of the calls denied after them.
-- Admitted call j (from 0) reports the first's remaining less j times the cost. An error replaces the whole
-- reply of the entry (its calls all fail, as each would alone).
local spare = {}
local function decide_same(key, p, cost, n, o)
  local linear = LINEAR[A[p[1]]]
  -- a policy with a lock-out (see decide.lua) is not linear: a denial changes the key
  if not linear or #p[5] > 1 then
    out[o + 1] = redis.error_reply('ERR rate-limit algorithm ' .. tostring(p[1]) .. ' cannot decide repeated calls')
    return o + 1
  end
  local ok, err = pcall(decide_one, key, p[1], p[2], p[3], p[4], p[5], cost, false, false, out, o + 1)
  if not ok or err then
    failed(ok, err, o, 1)
    return o + 1
  end
  if out[o + 3] ~= 1 then
    out[o + 1], out[o + 7] = 0, 0
    return o + 7
  end
  local m, d = 1, 0
  local left = out[o + 4]
  local more = floor(left / cost)
  if more > n - 1 then more = n - 1 end
  if more > 0 then
    ok, err = pcall(decide_one, key, p[1], p[2], p[3], p[4], p[5], cost * more, false, false, spare, 0)
    if not ok or err or spare[2] ~= 1 then
      -- cannot happen with a linear algorithm: fail these calls rather than guess their replies
      failed(false, err or redis.error_reply('ERR rate-limit burst not admitted'), o, 1)
      return o + 1
    end
    m = m + more
    if linear ~= true then
      -- the resets of calls 2..m, none when every one is the first's (d stays 0; what was written
      -- past the entry's end is written over by the next entry or cut when the run ends)
      local first = out[o + 6]
      local r = linear(key, p[2], p[3], left - cost)
      if r ~= nil then
        for j = 1, more do
          if j > 1 then r = linear(key, p[2], p[3], left - j * cost) or first end
          out[o + 7 + j] = r
          if r ~= first then d = more end
        end
      end
    end
  end
  out[o + 1], out[o + 7] = m, d
  local e = o + 7 + d
  if m == n then return e end
  ok, err = pcall(decide_one, key, p[1], p[2], p[3], p[4], p[5], cost, false, false, out, e)
  if not ok or err or out[e + 2] == 1 then
    failed(false, err or redis.error_reply('ERR rate-limit burst admitted past its remaining'), o, 1)
    return o + 1
  end
  return e + 5
end

local function main()
  begin_run()
  -- where the run's arguments start: after the keys of a run across cluster slots (see above)
  local b = 0
  if sub(ARGV[1], 1, 1) == '@' then
    local keys = {}
    b = tonumber(sub(ARGV[1], 2))
    for i = 1, b do keys[i] = ARGV[1 + i] end
    KEYS = keys
    b = b + 1
  end
  local policies = {}
  local a = b + 2
  for i = 1, tonumber(ARGV[b + 2]) do
    policies[i] = { ARGV[a + 1], tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), ARGV[a + 5],
      overrides(ARGV[a + 5]) }
    a = a + 5
  end
  out = {}
  local o = 0
  local k = 0
  local calls = tonumber(ARGV[b + 1])

  local compact = ARGV[a + 1]
  if sub(compact, 1, 1) == 'S' then
    set_clock(sub(compact, 2))
    local np = #policies
    -- entries standing for several identical calls: pairs (entry, number of calls) after the entries' values
    local repeats = {}
    for r = a + 2 + calls, #ARGV, 2 do
      repeats[tonumber(ARGV[r])] = tonumber(ARGV[r + 1])
    end
    local last, p, cost, name, limit, window, burst, shadow
    for c = 1, calls do
      local key, e = KEYS[c], ARGV[a + 1 + c]
      -- an entry valued as the previous one has its policy and cost (tonumber costs Redis a strtod)
      if e ~= last then
        local v = tonumber(e) - 1
        local i = v % np
        last, p, cost = e, policies[i + 1], (v - i) / np + 1
        name, limit, window, burst, shadow = p[1], p[2], p[3], p[4], p[5]
      end
      local n = repeats[c]
      if n then
        o = decide_same(key, p, cost, n, o)
      else
        local ok, err = pcall(decide_one, key, name, limit, window, burst, shadow, cost, false, false, out, o, true)
        if not ok or err then failed(ok, err, o, 5) end
        o = o + 5
      end
    end
    kv_flush()
    -- an entry that failed leaves what its decisions wrote after its error: not part of the reply
    for i = #out, o + 1, -1 do out[i] = nil end
    return out
  end

  for c = 1, calls do
    local n = tonumber(ARGV[a + 1])
    -- its reply's width: 1 + 4n, and 2n more when one of its policies has overrides (see decide.lua)
    local w = 1 + 4 * n
    for j = 1, n do
      if policies[tonumber(ARGV[a + 2 + 2 * j])][6] then
        w = 1 + 6 * n
        break
      end
    end
    -- a call that fails (a key of the wrong type, say) fails alone, as it would outside a batch
    local ok, err = pcall(decide, k, n, a + 1, policies, out, o)
    if not ok or err then failed(ok, err, o, w) end
    k = k + n
    a = a + 3 + 2 * n
    o = o + w
  end
  kv_flush()
  return out
end
