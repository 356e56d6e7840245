-- gcra (generic cell rate algorithm): emission interval T = window/limit, tolerance burst * T, and
-- one theoretical arrival time per key (see bucket.lua).
A['gcra'] = bucket
R['gcra'] = bucket_refund
D['gcra'] = bucket_debit
