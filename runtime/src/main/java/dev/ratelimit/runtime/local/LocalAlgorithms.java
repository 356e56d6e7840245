package dev.ratelimit.runtime.local;

import dev.ratelimit.runtime.policy.Algorithm;
/**
 * The six algorithms in process, with the semantics and the arithmetic of the Lua scripts: each
 * method mirrors its {@code .lua} file (read them side by side), so both backends give the same
 * reply for the same state, number for number.
 * <p>
 * Every quantity is an exact integer: a bucket's time is a pair {@code a + b / limit} microseconds
 * (see {@code bucket.lua}), the counter's weighted estimate is compared by exact products, and waits
 * are whole microseconds rounded up. A key holding another algorithm's state (a policy whose
 * algorithm changed) is read as the units that state holds in use, as the scripts do.
 */
final class LocalAlgorithms {

    /** What a state is, by the algorithm that wrote it. */
    static final int BUCKET = 0;
    static final int FIXED = 1;
    static final int COUNTER = 2;
    static final int LOG = 3;

    private LocalAlgorithms() {
    }

    /**
     * Per-key state. Bucket: {@code a + b / c} microseconds (the TAT). Fixed window: index {@code a},
     * count {@code c}. Counter: index {@code a}, previous count {@code b}, current count {@code c}.
     * Log: the admitted times. {@code share} is what eviction keeps the state by (see
     * {@link LocalBackend}): written under the key's lock, read by the evicting thread without it.
     */
    static final class State {
        final int kind;
        final long a;
        final long b;
        final long c;
        final TimeLog log;
        final long expiresAt;
        volatile double share;

        State(int kind, long a, long b, long c, TimeLog log, long expiresAt) {
            this.kind = kind;
            this.a = a;
            this.b = b;
            this.c = c;
            this.log = log;
            this.expiresAt = expiresAt;
        }
    }

    /**
     * One policy's verdict: admitted, units available before the request, microseconds until it
     * could be admitted (0 when admitted, -1 never), until more quota comes if it is charged, and
     * the same if it is not; the state to store if it is charged, and the times to log.
     */
    static final class Outcome {
        final boolean ok;
        final long avail;
        final long retry;
        final long reset;
        final long resetNow;
        final State next;
        long logAppends;

        private Outcome(boolean ok, long avail, long retry, long reset, long resetNow, State next) {
            this.ok = ok;
            this.avail = avail;
            this.retry = retry;
            this.reset = reset;
            this.resetNow = resetNow;
            this.next = next;
        }

        static Outcome denied(long avail, long retry, long resetNow) {
            return new Outcome(false, avail, retry, resetNow, resetNow, null);
        }

        static Outcome allowed(long avail, long reset, long resetNow, State next) {
            return new Outcome(true, avail, 0, reset, resetNow, next);
        }
    }

    static Outcome check(Algorithm a, State st, long now, long limit, long window, long burst, long cost) {
        switch (a) {
            case FIXED_WINDOW:
                return fixedWindow(st, now, limit, window, cost);
            case SLIDING_WINDOW_LOG:
                return slidingLog(st, now, limit, window, cost);
            case SLIDING_WINDOW_COUNTER:
                return slidingCounter(st, now, limit, window, cost);
            case TOKEN_BUCKET:
            case LEAKY_BUCKET:
            case GCRA:
                return bucket(st, now, limit, window, burst, cost);
            default:
                throw new IllegalArgumentException(a.toString());
        }
    }

    /**
     * The state a sliding log reads from a key holding another algorithm's state: the units held,
     * logged now (the script converts the key when it reads it, whatever it then decides), or
     * {@code st} itself when it is a log or there is none.
     */
    static State adoptForLog(State st, long now, long limit, long window) {
        if (st == null || st.kind == LOG) {
            return st;
        }
        long held = Math.min(unitsHeld(st, now, limit, window), limit);
        if (held == 0) {
            return null;
        }
        TimeLog log = new TimeLog();
        for (long i = 0; i < held; i++) {
            log.add(now);
        }
        return new State(LOG, 0, 0, 0, log, now + window);
    }

    /** Units another algorithm's state holds in use now, in the reading policy's terms (units_held). */
    private static long unitsHeld(State st, long now, long limit, long window) {
        switch (st.kind) {
            case LOG:
                return st.log.countAfter(now - window);
            case FIXED:
            case COUNTER:
                return st.b + st.c;
            default:
                long[] t = bucketTime(st, limit);
                double held = Math.ceil(((t[0] - now) * (double) limit + t[1]) / window - 1e-9);
                return held > 0 ? (long) held : 0;
        }
    }

    // ---- bucket.lua ------------------------------------------------------------------------------

    /** A bucket state's time in 1/limit microseconds, rounded up from another limit's (bucket_parse). */
    private static long[] bucketTime(State st, long limit) {
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

    private static Outcome bucket(State st, long now, long limit, long window, long burst, long cost) {
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
                long held = Math.min(unitsHeld(st, now, limit, window), burst);
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

    // ---- fixed-window.lua ------------------------------------------------------------------------

    private static Outcome fixedWindow(State st, long now, long limit, long window, long cost) {
        long idx = Math.floorDiv(now, window);
        long count = 0;
        boolean keepTtl = false;
        if (st != null) {
            if (st.kind == FIXED || st.kind == COUNTER) {
                if (st.a == idx) {
                    count = st.c;
                    keepTtl = count > 0;
                }
            } else {
                count = Math.min(unitsHeld(st, now, limit, window), limit);
            }
        }
        long left = (idx + 1) * window - now;
        long resetNow = count == 0 ? 0 : left;
        if (cost > limit) {
            return Outcome.denied(limit - count, -1, resetNow);
        }
        if (count + cost > limit) {
            return Outcome.denied(limit - count, left, resetNow);
        }
        long expiresAt = keepTtl ? st.expiresAt : now + left;
        return Outcome.allowed(limit - count, left, resetNow, new State(FIXED, idx, 0, count + cost, null, expiresAt));
    }

    // ---- sliding-window-log.lua ------------------------------------------------------------------

    private static Outcome slidingLog(State st, long now, long limit, long window, long cost) {
        // a foreign state was adopted before (adoptForLog): st is a log or nothing
        TimeLog log = st != null ? st.log : new TimeLog();
        log.removeUpTo(now - window);
        long count = log.size();
        long resetNow = count > 0 ? log.get(0) + window - now : 0;
        if (cost > limit) {
            return Outcome.denied(limit - count, -1, resetNow);
        }
        if (count + cost > limit) {
            // admitted once the (count + cost - limit) oldest entries have left the window
            int rank = (int) (count + cost - limit - 1);
            return Outcome.denied(limit - count, log.get(rank) + window - now, resetNow);
        }
        long reset = count > 0 ? resetNow : window;
        // the admitted times are appended only if the whole decision commits (see LocalBackend)
        Outcome o = Outcome.allowed(limit - count, reset, resetNow, new State(LOG, 0, 0, 0, log, now + window));
        o.logAppends = cost;
        return o;
    }

    // ---- sliding-window-counter.lua --------------------------------------------------------------

    private static Outcome slidingCounter(State st, long now, long limit, long window, long cost) {
        long idx = Math.floorDiv(now, window);
        long x = (idx + 1) * window - now;
        long prev = 0;
        long cur = 0;
        boolean sameWindow = false;
        if (st != null) {
            if (st.kind == FIXED || st.kind == COUNTER) {
                if (st.a == idx) {
                    prev = st.b;
                    cur = st.c;
                    sameWindow = st.kind == COUNTER;
                } else if (st.a == idx - 1) {
                    prev = st.c;
                }
            } else {
                cur = Math.min(unitsHeld(st, now, limit, window), limit);
            }
        }
        long used = cur + (prev > 0 ? ceilRatio(prev, x, window) : 0);
        long avail = Math.max(0, limit - used);
        long resetNow = avail < limit ? counterWait(prev, cur, limit - avail - 1, x, window) : 0;
        if (cost > limit) {
            return Outcome.denied(avail, -1, resetNow);
        }
        if (cost > avail) {
            return Outcome.denied(avail, counterWait(prev, cur, limit - cost, x, window), resetNow);
        }
        long reset = counterWait(prev, cur + cost, limit - (avail - cost) - 1, x, window);
        long expiresAt = sameWindow ? st.expiresAt : now + x + window;
        return Outcome.allowed(avail, reset, resetNow, new State(COUNTER, idx, prev, cur + cost, null, expiresAt));
    }

    /** The sign of {@code p * x - n * w}, exactly (the products may exceed a long). */
    static int compareProducts(long p, long x, long n, long w) {
        long hi1 = Math.multiplyHigh(p, x);
        long hi2 = Math.multiplyHigh(n, w);
        if (hi1 != hi2) {
            return hi1 < hi2 ? -1 : 1;
        }
        return Long.compareUnsigned(p * x, n * w);
    }

    /** {@code ceil(p * x / w)} for non-negative values, exactly. */
    static long ceilRatio(long p, long x, long w) {
        long n = (long) Math.ceil((double) p * x / w);
        while (n > 0 && compareProducts(p, x, n - 1, w) <= 0) {
            n--;
        }
        while (compareProducts(p, x, n, w) > 0) {
            n++;
        }
        return n;
    }

    /** {@code floor(k * w / p)} for {@code 0 <= k < p}, without overflow. */
    private static long floorRatio(long k, long w, long p) {
        long q = w / p;
        return k * q + k * (w - q * p) / p;
    }

    /** Whole microseconds, rounded up, until the estimate is at most {@code target} (counter_wait). */
    private static long counterWait(long p, long c, long target, long x, long w) {
        if (c <= target) {
            long k = target - c;
            if (p == 0 || compareProducts(p, x, k, w) <= 0) {
                return 0;
            }
            return x - floorRatio(k, w, p);
        }
        return x + w - floorRatio(target, w, c);
    }
}
