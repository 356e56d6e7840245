package dev.ratelimit.runtime.backend.local;

import dev.ratelimit.runtime.algorithm.Algorithm;

/**
 * The seven algorithms in process, with the semantics and the arithmetic of the Lua scripts: one class per
 * {@code .lua} file ({@link BucketAlgorithm} for the three bucket algorithms, {@link FixedWindowAlgorithm},
 * {@link SlidingLogAlgorithm}, {@link SlidingCounterAlgorithm}, {@link ConcurrencyAlgorithm}; read them side by side), so both backends give the
 * same reply for the same state, number for number. This class holds what the scripts' prelude does: the state,
 * the verdict, and reading another algorithm's state.
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
    static final int CONCURRENCY = 4;

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
        /** A concurrency key's leases. */
        final LeaseSet leases;
        final long expiresAt;
        volatile double share;

        State(int kind, long a, long b, long c, TimeLog log, long expiresAt) {
            this.kind = kind;
            this.a = a;
            this.b = b;
            this.c = c;
            this.log = log;
            this.leases = null;
            this.expiresAt = expiresAt;
        }

        State(int kind, LeaseSet leases, long expiresAt) {
            this.kind = kind;
            this.a = 0;
            this.b = 0;
            this.c = 0;
            this.log = null;
            this.leases = leases;
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
        /** When the lease a charge takes expires (concurrency only; 0 otherwise). */
        long leaseExpiresAt;

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

    /** {@code lease}: the lease a concurrency charge takes (null for every other call). */
    static Outcome check(Algorithm a, State st, long now, long limit, long window, long burst, long cost,
            String lease) {
        switch (a) {
            case FIXED_WINDOW:
                return FixedWindowAlgorithm.check(st, now, limit, window, cost);
            case SLIDING_WINDOW_LOG:
                return SlidingLogAlgorithm.check(st, now, limit, window, cost);
            case SLIDING_WINDOW_COUNTER:
                return SlidingCounterAlgorithm.check(st, now, limit, window, cost);
            case TOKEN_BUCKET:
            case LEAKY_BUCKET:
            case GCRA:
                return BucketAlgorithm.check(st, now, limit, window, burst, cost);
            case CONCURRENCY:
                return ConcurrencyAlgorithm.check(st, now, limit, window, cost, lease);
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
    static long unitsHeld(State st, long now, long limit, long window) {
        switch (st.kind) {
            case LOG:
                return st.log.countAfter(now - window);
            case FIXED:
            case COUNTER:
                return st.b + st.c;
            case CONCURRENCY:
                return 0; // never read by a rate algorithm: concurrency keys are apart (RedisKeys)
            default:
                long[] t = BucketAlgorithm.bucketTime(st, limit);
                double held = Math.ceil(((t[0] - now) * (double) limit + t[1]) / window - 1e-9);
                return held > 0 ? (long) held : 0;
        }
    }
}
