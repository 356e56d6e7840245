-- Shared prelude of every rate-limit script (the build concatenates: prelude, the algorithms, decide).
-- ARGV[1]: the current time in microseconds, or '' to read it from Redis TIME (the normal case, so
--          application clocks never matter; an explicit time exists for tests and for servers
--          that forbid TIME).
-- ARGV[2]: '1' to decide without charging anything (used to check policies whose keys live in
--          different cluster slots before charging them), anything else to decide and charge.
-- Then six arguments per policy, one policy per KEYS entry:
--          algorithm name, limit, window (microseconds), burst, cost, shadow ('1': reported, never
--          denies and never blocks the other policies).
local now
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local dry = ARGV[2] == '1'

-- Numbers handed to Redis go through %.14g, which would round microsecond timestamps: format
-- every large integer explicitly.
local function int(x)
  return string.format('%d', x)
end

-- Milliseconds for a TTL, never 0 (PX 0 is an error) and rounded up so state outlives its use.
local function ttl_ms(us)
  local ms = math.ceil(us / 1000)
  if ms < 1 then return 1 end
  return ms
end

-- Floating-point state (tokens, levels, theoretical arrival times) is compared with this slack
-- so that rounding never denies a unit that time has fully earned. It is far below one unit of
-- any policy, so it cannot admit a unit that has not been earned.
local EPS = 1e-9

-- Each algorithm is a function (key, limit, window, burst, cost) returning
--   allowed (1/0), units available before this request, microseconds until this request could
--   be admitted (0 when allowed, -1 when never: cost above capacity), microseconds until more
--   quota becomes available if the request is charged, the same if it is not charged, and a
--   function that writes the charged state.
local A = {}
