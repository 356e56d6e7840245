-- Decides every policy of one call in one atomic step: all are checked first, and only if every
-- enforced one admits are they charged (a denied request consumes nothing anywhere). A shadow
-- policy is charged when it would admit, and never blocks the others.
-- The call's n keys are KEYS[k + 1 .. k + n]; its arguments start after ARGV[a]: time, mode, then
-- per policy either its six values (see the prelude) or, in a batch (`policies` given), the index
-- of its five fixed values in `policies` and its cost.
-- Reply: written into `res` after its first `o` elements, 1 + 4n integers: all admitted (1/0), then
-- per policy: admitted (1/0), remaining, retry-after ms, reset ms; retry-after is -1 when the cost
-- can never be admitted. Returns nothing, or an error reply (then `res` may hold part of a reply).
-- A batch replies every call's integers in one flat array: an array per call would cost Redis a
-- table and a nested reply for every decision.

-- Policy i of the call whose arguments start after ARGV[a]: algorithm, limit, window, burst, shadow, cost.
local function policy_of(a, i, policies)
  if policies then
    local b = a + 2 + (i - 1) * 2
    local p = policies[tonumber(ARGV[b + 1])]
    return p[1], p[2], p[3], p[4], p[5], tonumber(ARGV[b + 2])
  end
  local b = a + 2 + (i - 1) * 6
  return ARGV[b + 1], tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]), tonumber(ARGV[b + 4]), ARGV[b + 5],
    tonumber(ARGV[b + 6])
end

-- One policy of one call, the common case, without the bookkeeping of several: it is charged exactly
-- when it admits (a shadow policy has nothing else to block), so the algorithm writes as it decides.
-- Writes the call's 1 + 4 integers after res[o]; returns nothing, or an error reply.
local function decide_one(key, name, limit, window, burst, shadow, cost, dry, as_is, res, o)
  local algorithm = A[name]
  if not algorithm then
    return redis.error_reply('ERR unknown rate-limit algorithm ' .. tostring(name))
  end
  local ok, avail, retry, reset, reset_now = algorithm(key, limit, window, burst, cost, not dry)
  local ok_all = ok
  if shadow == '1' then ok_all = 1 end
  if ok == 1 and not as_is then
    avail = avail - cost
  else
    reset = reset_now
  end
  if retry > 0 then retry = ms(retry) end
  if reset > 0 then reset = ms(reset) else reset = 0 end
  res[o + 1], res[o + 2], res[o + 3], res[o + 4], res[o + 5] = ok_all, ok, avail, retry, reset
end

local function decide(k, n, a, policies, res, o)
  set_clock(ARGV[a + 1])
  local mode = ARGV[a + 2]
  lease = nil
  if #mode > 1 then
    lease = sub(mode, 2)
    mode = '0'
  end
  local dry = mode ~= '0'
  local as_is = mode == '2'
  if n == 1 then
    local name, limit, window, burst, shadow, cost = policy_of(a, 1, policies)
    return decide_one(KEYS[k + 1], name, limit, window, burst, shadow, cost, dry, as_is, res, o)
  end
  local ok_all = 1
  res[o + 1] = 0
  local commits = {}
  local costs = {}
  local reset_uncharged = {}
  for i = 1, n do
    local name, limit, window, burst, shadow, cost = policy_of(a, i, policies)
    local algorithm = A[name]
    if not algorithm then
      return redis.error_reply('ERR unknown rate-limit algorithm ' .. tostring(name))
    end
    local ok, avail, retry, reset, reset_now, commit = algorithm(KEYS[k + i], limit, window, burst, cost, false)
    if ok == 0 and shadow ~= '1' then ok_all = 0 end
    commits[i] = commit
    costs[i] = cost
    reset_uncharged[i] = reset_now
    local p = o + 1 + (i - 1) * 4
    res[p + 1] = ok
    res[p + 2] = avail
    res[p + 3] = retry
    res[p + 4] = reset
  end
  res[o + 1] = ok_all
  for i = 1, n do
    local p = o + 1 + (i - 1) * 4
    if ok_all == 1 and res[p + 1] == 1 and not as_is then
      if not dry then commits[i]() end
      res[p + 2] = res[p + 2] - costs[i]
    else
      -- not charged: report the state as it stands
      res[p + 4] = reset_uncharged[i]
    end
    if res[p + 3] > 0 then res[p + 3] = ms(res[p + 3]) end
    if res[p + 4] > 0 then res[p + 4] = ms(res[p + 4]) else res[p + 4] = 0 end
  end
end
