-- Decides every policy of one call in one atomic step: all are checked first, and only if every
-- enforced one admits are they charged (a denied request consumes nothing anywhere). A shadow
-- policy is charged when it would admit, and never blocks the others.
-- The call's n keys are KEYS[k + 1 .. k + n]; its arguments start after ARGV[a]: time, mode, then
-- per policy either its six values (see the prelude) or, in a batch (`policies` given), the index
-- of its five fixed values in `policies` and its cost.
-- Reply: written into `res` after its first `o` elements, 1 + 4n integers: all admitted (1/0), then
-- per policy: admitted (1/0), remaining, retry-after ms, reset ms; retry-after is -1 when the cost
-- can never be admitted; then, when a policy has overrides, 2n more (see below). Returns nothing, or an error reply (then `res` may hold part of a reply).
-- A batch replies every call's integers in one flat array: an array per call would cost Redis a
-- table and a nested reply for every decision.

-- Lock-outs (block-for): a policy's shadow value is 'L<us>' instead of '0' when, once it denies a key, every
-- request on that key is denied for <us> microseconds whatever its algorithm would say (never with shadow, which
-- never denies). The lock is the string "<key>:locked" (the key's hash tag, so the key's cluster slot) holding the
-- microsecond it ends at, expiring then. A request denied by the lock reports 0 remaining and the time left as its
-- retry and reset; the denial that locks reports at least the lock-out as both. A cost above capacity (a wait of
-- -1) never locks: no request could have been admitted. Only a charge (mode 0) or a check that stands for one
-- (mode 3, the first pass across cluster slots) locks; a dry run replies what the charge would get.
local function lockout_of(shadow)
  if #shadow > 1 then return tonumber(sub(shadow, 2)) end
  return nil
end
-- The microseconds left of the lock on `key`, or nil when it is not locked.
local function locked_left(key)
  local ends = tonumber(redis.pcall('GET', key .. ':locked'))
  if ends and ends > now then return ends - now end
  return nil
end
local function lock_out(key, block)
  redis.call('SET', key .. ':locked', int(now + block), 'PX', ttl_ms(block))
end
-- One policy's verdict (see the algorithms' contract in the prelude), the lock-out applied: `block` is its lock-out
-- (nil: none), `locks` whether a denial writes it.
local function judge(algorithm, key, limit, window, burst, cost, write, block, locks)
  if block then
    local left = locked_left(key)
    if left then return 0, 0, left, left, left, nil end
  end
  local ok, avail, retry, reset, reset_now, commit = algorithm(key, limit, window, burst, cost, write)
  if block and ok == 0 and retry >= 0 then
    if locks then lock_out(key, block) end
    retry, reset_now = max(retry, block), max(reset_now, block)
  end
  return ok, avail, retry, reset, reset_now, commit
end

-- Overrides (overrides=true): a policy's shadow value starts with 'O' (then '0', '1' or 'L<us>' as above) when it
-- applies the values set at run time for a key. The string "<key>:override" (the key's hash tag, so the key's cluster
-- slot) holds "<limit> <window us> <burst> <expires at us> <plan>", each number empty when not set: a value not set is
-- the policy's own, except that a burst equal to the policy's limit follows an overridden limit. An override whose
-- instant has passed on the script's clock, or a value of another shape, is not applied. A call naming such a policy
-- replies, after its 1 + 4n integers, each of its policies' limit and window as they applied (2n more).
local function overridden(key, limit, window, burst)
  local v = redis.pcall('GET', key .. ':override')
  if type(v) ~= 'string' then return limit, window, burst end
  local l, w, b, e = match(v, '^(%d*) (%d*) (%d*) (%d*)')
  e = tonumber(e)
  if e and e <= now then return limit, window, burst end
  l, w, b = tonumber(l), tonumber(w), tonumber(b)
  if l and l > 0 then
    if burst == limit then burst = l end
    limit = l
  end
  if w and w > 0 then window = w end
  if b and b > 0 then burst = b end
  return limit, window, burst
end
-- Whether a shadow value marks a policy with overrides.
local function overrides(shadow)
  return #shadow > 1 and sub(shadow, 1, 1) == 'O'
end

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
local function decide_one(key, name, limit, window, burst, shadow, cost, dry, as_is, res, o, locks)
  local algorithm = A[name]
  if not algorithm then
    return redis.error_reply('ERR unknown rate-limit algorithm ' .. tostring(name))
  end
  local ok, avail, retry, reset, reset_now
  -- the common shadow value ('0' or '1': no overrides, no lock-out) goes straight to the algorithm (overrides and
  -- ms are written out here: a decision of a batch run makes no call it can spare)
  if #shadow > 1 then
    if sub(shadow, 1, 1) == 'O' then
      limit, window, burst = overridden(key, limit, window, burst)
      shadow = sub(shadow, 2)
      res[o + 6], res[o + 7] = limit, window
    end
    if #shadow > 1 then
      ok, avail, retry, reset, reset_now = judge(algorithm, key, limit, window, burst, cost, not dry,
        lockout_of(shadow), locks)
    else
      ok, avail, retry, reset, reset_now = algorithm(key, limit, window, burst, cost, not dry)
    end
  else
    ok, avail, retry, reset, reset_now = algorithm(key, limit, window, burst, cost, not dry)
  end
  local ok_all = ok
  if shadow == '1' then ok_all = 1 end
  if ok == 1 and not as_is then
    -- a turn (see bucket.lua) admits more than is available now: nothing is left
    avail = avail - cost
    if avail < 0 then avail = 0 end
  else
    reset = reset_now
  end
  -- whole milliseconds, rounded up (see ms: at least 1 for any positive wait)
  if retry > 0 then retry = ceil(retry / 1000) end
  if reset > 0 then reset = ceil(reset / 1000) else reset = 0 end
  res[o + 1], res[o + 2], res[o + 3], res[o + 4], res[o + 5] = ok_all, ok, avail, retry, reset
end

-- Settles each policy of a reservation charged at `at` (its cost argument: the units given back, or when
-- negative the units charged more), before the call is read as it then stands. `lapsed`: a leased slice given
-- back (mode G), whose refund counts the time since its charge (see bucket_refund).
local function settle(k, n, a, policies, at, lapsed)
  for i = 1, n do
    local name, limit, window, burst, shadow, units = policy_of(a, i, policies)
    if units ~= 0 and overrides(shadow) then
      limit, window, burst = overridden(KEYS[k + i], limit, window, burst)
    end
    if units > 0 then
      local refund = R[name]
      if refund then refund(KEYS[k + i], limit, window, burst, at, units, lapsed) end
    elseif units < 0 then
      local debit = D[name]
      if debit then debit(KEYS[k + i], limit, window, burst, -units) end
    end
  end
end

local function decide(k, n, a, policies, res, o)
  set_clock(ARGV[a + 1])
  local mode = ARGV[a + 2]
  lease, turn = nil, nil
  local kind = sub(mode, 1, 1)
  local reserve = kind == 'R'
  -- after a settlement, each policy is read as it stands, for one unit (as a state read)
  local ones = kind == 'S' or kind == 'G'
  if ones then
    settle(k, n, a, policies, tonumber(sub(mode, 2)), kind == 'G')
    mode = '2'
  elseif kind == 'W' then
    turn = tonumber(sub(mode, 2))
    mode = '0'
  elseif #mode > 1 then
    lease = sub(mode, 2)
    mode = '0'
  elseif reserve then
    mode = '0'
  end
  local dry = mode ~= '0'
  local as_is = mode == '2' or mode == '3'
  local locks = mode == '0' or mode == '3'
  if n == 1 then
    local name, limit, window, burst, shadow, cost = policy_of(a, 1, policies)
    if ones then cost = 1 end
    local err = decide_one(KEYS[k + 1], name, limit, window, burst, shadow, cost, dry, as_is, res, o, locks)
    if reserve and not err and res[o + 1] == 1 then res[o + 1] = now end
    return err
  end
  local ok_all = 1
  res[o + 1] = 0
  local commits = {}
  local costs = {}
  local reset_uncharged = {}
  -- the limit and window each policy applied, replied when one of them has overrides
  local values, applied = {}, false
  for i = 1, n do
    local name, limit, window, burst, shadow, cost = policy_of(a, i, policies)
    if ones then cost = 1 end
    if overrides(shadow) then
      limit, window, burst = overridden(KEYS[k + i], limit, window, burst)
      shadow = sub(shadow, 2)
      applied = true
    end
    values[2 * i - 1], values[2 * i] = limit, window
    local algorithm = A[name]
    if not algorithm then
      return redis.error_reply('ERR unknown rate-limit algorithm ' .. tostring(name))
    end
    local ok, avail, retry, reset, reset_now, commit
    if #shadow > 1 then
      ok, avail, retry, reset, reset_now, commit = judge(algorithm, KEYS[k + i], limit, window, burst, cost, false,
        lockout_of(shadow), locks)
    else
      ok, avail, retry, reset, reset_now, commit = algorithm(KEYS[k + i], limit, window, burst, cost, false)
    end
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
      res[p + 2] = max(res[p + 2] - costs[i], 0)
    else
      -- not charged: report the state as it stands
      res[p + 4] = reset_uncharged[i]
    end
    if res[p + 3] > 0 then res[p + 3] = ms(res[p + 3]) end
    if res[p + 4] > 0 then res[p + 4] = ms(res[p + 4]) else res[p + 4] = 0 end
    if applied then
      local e = o + 4 * n + 2 * i
      res[e], res[e + 1] = values[2 * i - 1], values[2 * i]
    end
  end
  if reserve and ok_all == 1 then res[o + 1] = now end
end
