package dev.ratelimit.runtime.backend.local;

import static dev.ratelimit.runtime.backend.local.LocalAlgorithms.BUCKET;

import dev.ratelimit.runtime.backend.local.LocalAlgorithms.Outcome;
import dev.ratelimit.runtime.backend.local.LocalAlgorithms.State;

/**
 * Token bucket, leaky bucket and GCRA (one state, the theoretical arrival time) in process, as {@code bucket.lua} decides it, number for number.
 */
final class BucketAlgorithm {

    private BucketAlgorithm() {
    }

    /** A bucket state's time in 1/limit microseconds, rounded up from another limit's (bucket_parse). */
    static long[] bucketTime(State st, long limit) {
        if (st.c == limit) {
            return new long[] { st.a, st.b };
        }
        long b = (long) Math.ceil((double) st.b / st.c * limit - 1e-6);
        if (b >= limit) {
            return new long[] { st.a + 1, 0 };
        }
        return new long[] { st.a, Math.max(0, b) };
    }

    /** Whole microseconds from now until (a, b) plus k units, rounded up (bucket_until of bucket_add). */
    private static long until(long a, long b, long k, long qw, long rw, long limit, long now) {
        long nb = b + k * rw;
        long carry = Math.floorDiv(nb, limit);
        long ea = a + k * qw + carry;
        return nb - carry * limit > 0 ? ea - now + 1 : ea - now;
    }

    static Outcome check(State st, long now, long limit, long window, long burst, long cost) {
        long qw = window / limit;
        long rw = window - qw * limit;
        long a = now;
        long b = 0;
        if (st != null) {
            if (st.kind == BUCKET) {
                long[] t = bucketTime(st, limit);
                a = t[0];
                b = t[1];
            } else {
                long held = Math.min(LocalAlgorithms.unitsHeld(st, now, limit, window), burst);
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
        if (cost > avail) {
            return Outcome.denied(avail, until(a, b, cost - burst, qw, rw, limit, now), nextNow);
        }
        long nb = b + cost * rw;
        long na = a + cost * qw + nb / limit;
        nb %= limit;
        long reset = until(na, nb, avail - cost + 1 - burst, qw, rw, limit, now);
        long drained = nb > 0 ? na + 1 : na;
        return Outcome.allowed(avail, reset, nextNow, new State(BUCKET, na, nb, limit, null, drained));
    }
}
