-- sliding-window-counter: the previous window's count weighted by how much of it still overlaps
-- the sliding window, plus the current window's count. The value is "<index>:<previous>:<current>".
-- It is an estimate: see docs (policies page) for its error bound.
-- The key expires at the end of the next window (its count is that window's "previous"); a write
-- within the window that set that TTL keeps it (KEEPTTL), sparing Redis an expiry update.
-- A value another algorithm wrote counts as the current window's units (see units_held).
--
-- Exactness: with x microseconds left in the window, the estimate is prev * x / window + cur, whose
-- products reach 1e7 * 3e13, beyond the 2^53 a double holds exactly. Comparisons split them (see
-- counter_cmp), so admissions, remaining units and waits are exact.

-- The sign of p * x - n * w, exactly, for p and n below 2^24 and x and w below 2^45: each product
-- is split at 2^20 so that every partial product stays an exact integer.
local function counter_cmp(p, x, n, w)
  local xh = floor(x / 1048576)
  local wh = floor(w / 1048576)
  local hi = p * xh - n * wh
  local lo = p * (x - xh * 1048576) - n * (w - wh * 1048576)
  -- |lo| < 2^44: when |hi| >= 2^25 its sign decides, else the sum is exact
  if hi >= 33554432 then return 1 elseif hi <= -33554432 then return -1 end
  local d = hi * 1048576 + lo
  if d > 0 then return 1 elseif d < 0 then return -1 end
  return 0
end

-- ceil(p * x / w). While p * x stays below 2^53 the quotient rounded to a double has the same
-- ceiling (it could only fall to an integer m below the truth if m * w exceeded p * x); beyond, it is
-- estimated in floating point (within a unit of the truth), then made exact.
local function counter_ceil(p, x, w)
  local px = p * x
  if px < 9007199254740992 then return ceil(px / w) end
  local n = ceil(px / w)
  while n > 0 and counter_cmp(p, x, n - 1, w) <= 0 do n = n - 1 end
  while counter_cmp(p, x, n, w) > 0 do n = n + 1 end
  return n
end

-- floor(k * w / p) for 0 <= k < p: with w = q * p + r, k * q + floor(k * r / p), every product
-- below 2^53.
local function counter_floor(k, w, p)
  local q = floor(w / p)
  return k * q + floor(k * (w - q * p) / p)
end

-- Whole microseconds, rounded up, until the estimate is at most `target` if nothing more is
-- admitted; x microseconds are left in the window.
local function counter_wait(p, c, target, x, w)
  if c <= target then
    local k = target - c
    if p == 0 then return 0 end
    -- p * x <= k * w: compared directly while both products are exact
    local px, kw = p * x, k * w
    if px < 9007199254740992 and kw < 9007199254740992 then
      if px <= kw then return 0 end
    elseif counter_cmp(p, x, k, w) <= 0 then
      return 0
    end
    -- p * (x - t) <= k * w once t >= x - k * w / p (here k < p)
    return x - counter_floor(k, w, p)
  end
  -- only the next window helps: its previous count is c, its current one 0
  return x + w - counter_floor(target, w, c)
end

-- Whole microseconds until the estimate falls by one from what is `avail` units short of `limit`
-- (0 when nothing is used).
local function counter_reset(prev, cur, avail, limit, x, window)
  if avail < limit then return counter_wait(prev, cur, limit - avail - 1, x, window) end
  return 0
end

A['sliding-window-counter'] = function(key, limit, window, burst, cost, write)
  local idx = floor(now / window)
  local x = (idx + 1) * window - now
  local prev, cur = 0, 0
  local same_window = false
  local v = kv_get(key)
  if v then
    local i, p, c, own = window_parse(v)
    if c then
      if i == idx then
        prev, cur = p, c
        -- a fixed window's value expires with this window: write the counter's TTL over it
        same_window = own
      elseif i == idx - 1 then
        prev = c
      end
    else
      cur = units_held(v, key, limit, window)
      if cur > limit then cur = limit end
    end
  end
  local used = cur
  if prev > 0 then used = used + counter_ceil(prev, x, window) end
  local avail = limit - used
  if avail < 0 then avail = 0 end
  if cost > avail then
    local reset_now = counter_reset(prev, cur, avail, limit, x, window)
    if cost > limit then return 0, avail, -1, reset_now, reset_now, nil end
    return 0, avail, counter_wait(prev, cur, limit - cost, x, window), reset_now, reset_now, nil
  end
  local reset = counter_wait(prev, cur + cost, limit - (avail - cost) - 1, x, window)
  if write then
    -- charged as it admits: the uncharged reset is not read (see the prelude)
    if same_window then
      kv_set(key, { idx, prev, cur + cost })
    else
      kv_set(key, { idx, prev, cur + cost }, ttl_ms(x + window))
    end
    return 1, avail, 0, reset, reset, nil
  end
  return 1, avail, 0, reset, counter_reset(prev, cur, avail, limit, x, window), function()
    if same_window then
      kv_set(key, { idx, prev, cur + cost })
    else
      kv_set(key, { idx, prev, cur + cost }, ttl_ms(x + window))
    end
  end
end
-- A refund (see settle in decide.lua): the count of the window the reservation was charged in falls by
-- `units` (not below 0): the current one, or the previous one when the window has turned since; older
-- windows no longer count. Its TTL is unchanged. A value this algorithm did not write is left alone.
R['sliding-window-counter'] = function(key, limit, window, burst, at, units)
  local v = kv_get(key)
  if not v then return end
  local i, p, c, own = window_parse(v)
  if not c or not own then return end
  local j = floor(at / window)
  if j == i then
    c = c - units
    if c < 0 then c = 0 end
  elseif j == i - 1 then
    p = p - units
    if p < 0 then p = 0 end
  else
    return
  end
  kv_set(key, { i, p, c })
end

-- The most a window counts: one capacity of debt beyond the limit, and below 2^24 so that the estimate stays
-- exact (counter_cmp).
local COUNTER_MOST = 16777215

-- A debit: the current window counts `units` more (the previous window moving back if the window turned), up
-- to twice the limit.
D['sliding-window-counter'] = function(key, limit, window, burst, units)
  local idx = floor(now / window)
  local prev, cur, same = 0, 0, false
  local v = kv_get(key)
  if v then
    local i, p, c, own = window_parse(v)
    if c and own then
      if i == idx then
        prev, cur, same = p, c, true
      elseif i == idx - 1 then
        prev = c
      end
    end
  end
  local most = 2 * limit
  if most > COUNTER_MOST then most = COUNTER_MOST end
  cur = cur + units
  if cur > most then cur = most end
  if same then
    kv_set(key, { idx, prev, cur })
  else
    kv_set(key, { idx, prev, cur }, ttl_ms((idx + 1) * window - now + window))
  end
end

-- Admissions at one instant leave cost units fewer each (see decide_same in batch.lua). The reset
-- does not move while the previous window still counts (the wait is for its share to fall by one);
-- without a previous count it is the wait for the current count c to fall below c / (c - 1) of a
-- window, c being the count a call left, so each call of a burst gets its own.
if batching then
  LINEAR[A['sliding-window-counter']] = function(key, limit, window, remaining)
    local _, prev = window_parse(kv_get(key))
    if prev > 0 then return nil end
    local c = limit - remaining
    return ms((floor(now / window) + 1) * window - now + window - counter_floor(c - 1, window, c))
  end
end
