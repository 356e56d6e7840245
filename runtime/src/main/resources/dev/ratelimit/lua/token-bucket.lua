-- token-bucket: holds at most `burst` tokens, refilled continuously at limit/window; a request takes
-- `cost` tokens. The same rate and capacity as the other bucket algorithms (see bucket.lua): the
-- bucket holds burst - (TAT - now) * limit / window tokens.
A['token-bucket'] = bucket
R['token-bucket'] = bucket_refund
D['token-bucket'] = bucket_debit
