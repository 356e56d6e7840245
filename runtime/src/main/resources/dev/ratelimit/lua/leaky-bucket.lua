-- leaky-bucket (as a meter): every admitted unit adds to a level draining at limit/window, and a
-- request is admitted while the level plus its cost stays within `burst`. The level is
-- (TAT - now) * limit / window (see bucket.lua).
A['leaky-bucket'] = bucket
R['leaky-bucket'] = bucket_refund
D['leaky-bucket'] = bucket_debit
