package dev.ratelimit.runtime.algorithm;

/**
 * Token bucket, leaky bucket and GCRA (one state, the theoretical arrival time) in process, as {@code bucket.lua}
 * decides them, number for number.
 */
final class BucketAlgorithm implements InProcessAlgorithm {

    /** The one twin of the three: their scripts only name {@code bucket.lua}'s function. */
    static final BucketAlgorithm SHARED = new BucketAlgorithm();

    private BucketAlgorithm() {
    }

    @Override
    public String script() {
        return "bucket.lua";
    }

    /** Whole microseconds from now until (a, b) plus k units, rounded up (bucket_until of bucket_add). */
    private static long until(long a, long b, long k, long qw, long rw, long limit, long now) {
        long nb = b + k * rw;
        long carry = Math.floorDiv(nb, limit);
        long ea = a + k * qw + carry;
        return nb - carry * limit > 0 ? ea - now + 1 : ea - now;
    }

    @Override
    public Outcome decide(State st, long now, long limit, long window, long burst, long cost, String lease) {
        return decide(st, now, limit, window, burst, cost, lease, 0);
    }

    /** As bucket.lua decides, a call that does not fit now taking the next turn within {@code turn} µs. */
    @Override
    public Outcome decide(State st, long now, long limit, long window, long burst, long cost, String lease,
            long turn) {
        long qw = window / limit;
        long rw = window - qw * limit;
        long a = now;
        long b = 0;
        if (st != null) {
            if (st instanceof BucketState bucket) {
                long[] t = bucket.time(limit);
                a = t[0];
                b = t[1];
            } else {
                long held = Math.min(st.unitsHeld(now, limit, window), burst);
                long nb = held * rw;
                a = now + held * qw + nb / limit;
                b = nb % limit;
            }
            if (a < now) {
                a = now;
                b = 0;
            }
        }
        long avail = (long) Math.floor(burst - ((a - now) * (double) limit + b) / window);
        avail = Math.max(0, Math.min(burst, avail));
        while (avail < burst && until(a, b, avail + 1 - burst, qw, rw, limit, now) <= 0) {
            avail++;
        }
        while (avail > 0 && until(a, b, avail - burst, qw, rw, limit, now) > 0) {
            avail--;
        }
        long nextNow = avail < burst ? until(a, b, avail + 1 - burst, qw, rw, limit, now) : 0;
        if (cost > burst) {
            return Outcome.denied(avail, -1, nextNow);
        }
        long wait = 0;
        long left = avail - cost;
        if (cost > avail) {
            wait = until(a, b, cost - burst, qw, rw, limit, now);
            if (wait > turn) {
                return Outcome.denied(avail, wait, nextNow);
            }
            left = 0; // a turn: charged now, admitted in `wait` µs
        }
        long nb = b + cost * rw;
        long na = a + cost * qw + nb / limit;
        nb %= limit;
        long reset = until(na, nb, left + 1 - burst, qw, rw, limit, now);
        long drained = nb > 0 ? na + 1 : na;
        return Outcome.inTurn(avail, wait, reset, nextNow, new BucketState(na, nb, limit, drained));
    }

    /** The key's time moves back by {@code units} units, never before now (bucket_refund in bucket.lua). */
    @Override
    public State refund(State st, long now, long limit, long window, long burst, long at, long units) {
        return refund(st, now, limit, window, units, -1);
    }

    /**
     * The key's time moves back by the time {@code units} units took less the time passed since the charge at
     * {@code at}, never before now (bucket_refund in bucket.lua, a leased slice's give-back).
     */
    @Override
    public State giveBack(State st, long now, long limit, long window, long burst, long at, long units) {
        return refund(st, now, limit, window, units, at);
    }

    /** A refund; {@code lapsedSince} >= 0: less the time passed since then. */
    private static State refund(State st, long now, long limit, long window, long units, long lapsedSince) {
        if (!(st instanceof BucketState bucket)) {
            return st;
        }
        long[] t = bucket.time(limit);
        if (t[0] < now || (t[0] == now && t[1] == 0)) {
            return st;
        }
        long qw = window / limit;
        long rw = window - qw * limit;
        long nb = t[1] - units * rw;
        long carry = Math.floorDiv(nb, limit);
        long na = t[0] - units * qw + carry;
        nb -= carry * limit;
        if (lapsedSince >= 0 && now > lapsedSince) {
            na += now - lapsedSince;
            if (na > t[0] || (na == t[0] && nb >= t[1])) {
                return st;
            }
        }
        if (na < now) {
            na = now;
            nb = 0;
        }
        return new BucketState(na, nb, limit, nb > 0 ? na + 1 : na);
    }

    /**
     * The key's time moves on by {@code units} units from now or later, to at most two capacities from now
     * (bucket_debit in bucket.lua).
     */
    @Override
    public State debit(State st, long now, long limit, long window, long burst, long units) {
        long qw = window / limit;
        long rw = window - qw * limit;
        long a = now;
        long b = 0;
        if (st instanceof BucketState bucket) {
            long[] t = bucket.time(limit);
            a = t[0];
            b = t[1];
        } else if (st != null) {
            long held = Math.min(st.unitsHeld(now, limit, window), burst);
            a = now + held * qw + held * rw / limit;
            b = held * rw % limit;
        }
        if (a < now) {
            a = now;
            b = 0;
        }
        long nb = b + units * rw;
        long na = a + units * qw + nb / limit;
        nb %= limit;
        long mb = 2 * burst * rw;
        long ma = now + 2 * burst * qw + mb / limit;
        mb %= limit;
        if (na > ma || (na == ma && nb > mb)) {
            na = ma;
            nb = mb;
        }
        return new BucketState(na, nb, limit, nb > 0 ? na + 1 : na);
    }
}
