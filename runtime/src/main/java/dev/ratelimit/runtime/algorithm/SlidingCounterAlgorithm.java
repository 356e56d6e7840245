package dev.ratelimit.runtime.algorithm;

/**
 * The sliding window counter in process, as {@code sliding-window-counter.lua} decides it, number for number.
 */
final class SlidingCounterAlgorithm implements InProcessAlgorithm {

    @Override
    public String script() {
        return "sliding-window-counter.lua";
    }

    @Override
    public Outcome decide(State st, long now, long limit, long window, long burst, long cost, String lease) {
        long idx = Math.floorDiv(now, window);
        long x = (idx + 1) * window - now;
        long prev = 0;
        long cur = 0;
        boolean sameWindow = false;
        if (st instanceof CounterState c) {
            if (c.index == idx) {
                prev = c.previous;
                cur = c.current;
                sameWindow = true;
            } else if (c.index == idx - 1) {
                prev = c.current;
            }
        } else if (st instanceof WindowState w) {
            // a fixed window's count is the counter's current window (with none before it)
            if (w.index == idx) {
                cur = w.count;
            } else if (w.index == idx - 1) {
                prev = w.count;
            }
        } else if (st != null) {
            cur = Math.min(st.unitsHeld(now, limit, window), limit);
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
        long expiresAt = sameWindow ? st.expiresAt() : now + x + window;
        return Outcome.allowed(avail, reset, resetNow, new CounterState(idx, prev, cur + cost, expiresAt));
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

    /**
     * The count of the reservation's window falls by {@code units}, not below 0: the current one, or the previous one
     * (sliding-window-counter.lua's refund).
     */
    @Override
    public State refund(State st, long now, long limit, long window, long burst, long at, long units) {
        if (!(st instanceof CounterState c)) {
            return st;
        }
        long j = Math.floorDiv(at, window);
        if (j == c.index) {
            return new CounterState(c.index, c.previous, Math.max(0, c.current - units), c.expiresAt());
        }
        if (j == c.index - 1) {
            return new CounterState(c.index, Math.max(0, c.previous - units), c.current, c.expiresAt());
        }
        return st;
    }

    /** The most a window counts (the script's COUNTER_MOST): below 2^24, where its estimate is exact. */
    static final long MOST = 16_777_215;

    /**
     * The current window counts {@code units} more (the previous one moving back if the window turned), up to twice
     * the limit (sliding-window-counter.lua's debit).
     */
    @Override
    public State debit(State st, long now, long limit, long window, long burst, long units) {
        long idx = Math.floorDiv(now, window);
        long prev = 0;
        long cur = 0;
        boolean same = false;
        if (st instanceof CounterState c) {
            if (c.index == idx) {
                prev = c.previous;
                cur = c.current;
                same = true;
            } else if (c.index == idx - 1) {
                prev = c.current;
            }
        }
        long most = Math.min(2 * limit, MOST);
        long expiresAt = same ? st.expiresAt() : (idx + 1) * window + window;
        return new CounterState(idx, prev, Math.min(cur + units, most), expiresAt);
    }
}
