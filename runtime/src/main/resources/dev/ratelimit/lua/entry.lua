-- A script deciding one call: every key is one of its policies, the arguments are its own.
local function main()
  begin_run()
  local res = {}
  return decide(0, #KEYS, 0, nil, res, 0) or res
end
