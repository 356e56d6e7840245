package dev.ratelimit.runtime.backend.local;

import static dev.ratelimit.runtime.backend.local.LocalAlgorithms.COUNTER;
import static dev.ratelimit.runtime.backend.local.LocalAlgorithms.FIXED;

import dev.ratelimit.runtime.backend.local.LocalAlgorithms.Outcome;
import dev.ratelimit.runtime.backend.local.LocalAlgorithms.State;

/**
 * The fixed window in process, as {@code fixed-window.lua} decides it, number for number.
 */
final class FixedWindowAlgorithm {

    private FixedWindowAlgorithm() {
    }

    static Outcome check(State st, long now, long limit, long window, long cost) {
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
                count = Math.min(LocalAlgorithms.unitsHeld(st, now, limit, window), limit);
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
}
