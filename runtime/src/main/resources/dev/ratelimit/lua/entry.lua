-- A script deciding one call: every key is one of its policies, the arguments are its own.
return decide(0, #KEYS, 0)
