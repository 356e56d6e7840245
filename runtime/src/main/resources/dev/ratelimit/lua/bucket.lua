-- The bucket algorithms (token-bucket, leaky-bucket, gcra) are one rate and one capacity read three
-- ways, so they share this code and their state: the theoretical arrival time (TAT), the instant at
-- which everything admitted so far has drained at limit/window. With T = max(TAT, now), an idle key
-- (T = now) admits `burst` units at once, and k units fit while T + (k - burst) * window / limit
-- <= now. The three files name this function; switching among them keeps a key's meaning.
--
-- Exactness: a unit lasts window/limit microseconds, rarely a whole number, and Redis TIME is about
-- 1.8e15, where a double's step is 0.25 us. Times are therefore kept as exact pairs (a, b) meaning
-- a + b / limit microseconds, with a and b integers (0 <= b < limit), and every product is kept far
-- below 2^53: with window = qw * limit + rw, k units add k * qw to a and k * rw to b (k * rw <
-- limit^2 <= 1e14). Nothing is lost to rounding at any rate the configuration accepts.

-- (a, b) plus k units (k may be negative), as a pair again.
local function bucket_add(a, b, k, qw, rw, limit)
  local nb = b + k * rw
  local carry = floor(nb / limit)
  return a + k * qw + carry, nb - carry * limit
end

-- The key's time from its value: a bucket's own, or the units another algorithm's value holds (see
-- units_held), as if they had just been admitted here.
local function bucket_read(v, key, limit, window, burst, qw, rw)
  local a, b = bucket_parse(v, limit)
  if a then return a, b end
  local held = units_held(v, key, limit, window)
  if held > burst then held = burst end
  return bucket_add(now, 0, held, qw, rw, limit)
end

-- Whole microseconds from now until (a, b), rounded up (0 or less: not later than now).
local function bucket_until(a, b)
  if b > 0 then return a - now + 1 end
  return a - now
end

-- Whether k units fit at the key's state (a, b).
local function bucket_fits(a, b, k, burst, qw, rw, limit)
  local ea, eb = bucket_add(a, b, k - burst, qw, rw, limit)
  return ea < now or (ea == now and eb == 0)
end

-- Whole microseconds until more quota comes at (a, b) with `avail` units available: the next whole
-- unit, or 0 when the bucket is full.
local function bucket_next(a, b, avail, burst, qw, rw, limit)
  if avail < burst then return bucket_until(bucket_add(a, b, avail + 1 - burst, qw, rw, limit)) end
  return 0
end

local function bucket(key, limit, window, burst, cost, write)
  local qw = floor(window / limit)
  local rw = window - qw * limit
  local a, b = now, 0
  local v = kv_get(key)
  if v then
    a, b = bucket_read(v, key, limit, window, burst, qw, rw)
    if a < now then a, b = now, 0 end
  end
  -- units available: all of them in a bucket drained by now (an idle key, the common case), else the
  -- k that fit, k * window <= burst * window - ((a - now) * limit + b) (see bucket_fits): divided
  -- directly while the products stay far enough below 2^53 (the quotient's floor is then exact), else
  -- estimated in floating point and made exact by the integer test
  local avail = burst
  if a > now or b > 0 then
    local used, total = (a - now) * limit + b, burst * window
    if used < 9007199254740992 and total + window < 9007199254740992 then
      avail = floor((total - used) / window)
      if avail < 0 then avail = 0 end
    else
      avail = floor(burst - used / window)
      if avail > burst then avail = burst elseif avail < 0 then avail = 0 end
      while avail < burst and bucket_fits(a, b, avail + 1, burst, qw, rw, limit) do avail = avail + 1 end
      while avail > 0 and not bucket_fits(a, b, avail, burst, qw, rw, limit) do avail = avail - 1 end
    end
  end
  local wait, left = 0, avail - cost
  if cost > avail then
    local next_now = bucket_next(a, b, avail, burst, qw, rw, limit)
    if cost > burst then return 0, avail, -1, next_now, next_now, nil end
    wait = bucket_until(bucket_add(a, b, cost - burst, qw, rw, limit))
    -- A call that may wait (max-wait: mode 'W<us>') takes the next turn when it comes within `turn` us: it is
    -- charged now, from the key's time as any admission is, and admitted `wait` us from now, the instant its units
    -- have come. The key's time moves past that instant, so the next caller's turn comes after it: waiters are
    -- served in the order Redis charged them, and each at an instant the bucket admits it.
    if not turn or wait > turn then return 0, avail, wait, next_now, next_now, nil end
    left = 0
  end
  -- what follows is bucket_add and bucket_until written out, the same operations in the same order (the path
  -- of every admission: no call it can spare): the key's new time (na, nb), the key's TTL, then the reset
  -- (with rw = 0 and b = 0, a unit lasting whole microseconds and a key's time a whole microsecond, the common case,
  -- every carry is 0 and the fractions stay 0: the same values without a call to floor)
  local na, nb
  if rw == 0 and b == 0 then
    na, nb = a + cost * qw, 0
  else
    nb = b + cost * rw
    local carry = floor(nb / limit)
    na = a + cost * qw + carry
    nb = nb - carry * limit
  end
  local value, ttl = na, na - now
  if nb ~= 0 then value = { na, nb, den = limit } end
  if nb > 0 then ttl = ttl + 1 end
  -- every TTL goes through ttl_ms (tests give keys a day to live by replacing it: see ScriptRunner.longLived)
  ttl = ttl_ms(ttl)
  local k = left + 1 - burst
  local reset
  if rw == 0 and nb == 0 then
    reset = na + k * qw - now
  else
    local rb = nb + k * rw
    local carry = floor(rb / limit)
    reset = na + k * qw + carry - now
    if rb - carry * limit > 0 then reset = reset + 1 end
  end
  if write then
    -- charged as it admits: the uncharged reset is not read (see the prelude)
    kv_set(key, value, ttl)
    return 1, avail, wait, reset, reset, nil
  end
  return 1, avail, wait, reset, bucket_next(a, b, avail, burst, qw, rw, limit), function()
    kv_set(key, value, ttl)
  end
end
-- the units available fall by exactly the cost, and the reset (the next whole unit after what is
-- available) does not move: see decide_same in batch.lua
LINEAR[bucket] = true

-- A refund (see settle in decide.lua): the key's time moves back by `units` units, never before now (a
-- bucket holds at most its burst), whenever the reservation was charged. A key holding another
-- algorithm's value, or none, is left alone. A leased slice's give-back (`lapsed`) moves it back by the time
-- those units took less the time passed since the charge at `at`: what may have refilled since (the bucket full
-- meanwhile, then charged by others) is not given twice, so leasing stays within its bound.
local function bucket_refund(key, limit, window, burst, at, units, lapsed)
  local v = kv_get(key)
  if not v then return end
  local a, b = bucket_parse(v, limit)
  if not a or a < now or (a == now and b == 0) then return end
  local qw = floor(window / limit)
  local na, nb = bucket_add(a, b, -units, qw, window - qw * limit, limit)
  if lapsed and now > at then
    na = na + (now - at)
    if na > a or (na == a and nb >= b) then return end
  end
  if na < now then na, nb = now, 0 end
  local value = na
  if nb ~= 0 then value = { na, nb, den = limit } end
  kv_set(key, value, ttl_ms(bucket_until(na, nb)))
end

-- A debit: the key's time moves on by `units` units from now or later, to at most two capacities from now (a
-- debt of one capacity: nothing is admitted until it has drained).
local function bucket_debit(key, limit, window, burst, units)
  local qw = floor(window / limit)
  local rw = window - qw * limit
  local a, b = now, 0
  local v = kv_get(key)
  if v then
    a, b = bucket_read(v, key, limit, window, burst, qw, rw)
    if a < now then a, b = now, 0 end
  end
  local na, nb = bucket_add(a, b, units, qw, rw, limit)
  local ma, mb = bucket_add(now, 0, 2 * burst, qw, rw, limit)
  if na > ma or (na == ma and nb > mb) then na, nb = ma, mb end
  local value = na
  if nb ~= 0 then value = { na, nb, den = limit } end
  kv_set(key, value, ttl_ms(bucket_until(na, nb)))
end
