package dev.ratelimit.runtime.algorithm;

/**
 * The fixed window in process, as {@code fixed-window.lua} decides it, number for number.
 */
final class FixedWindowAlgorithm implements InProcessAlgorithm {

    @Override
    public String script() {
        return "fixed-window.lua";
    }

    @Override
    public Outcome decide(State st, long now, long limit, long window, long burst, long cost, String lease) {
        long idx = Math.floorDiv(now, window);
        long count = 0;
        boolean keepTtl = false;
        if (st instanceof WindowState w) {
            if (w.index == idx) {
                count = w.count;
                keepTtl = count > 0;
            }
        } else if (st instanceof CounterState c) {
            // the counter's current window is a fixed window's count
            if (c.index == idx) {
                count = c.current;
                keepTtl = count > 0;
            }
        } else if (st != null) {
            count = Math.min(st.unitsHeld(now, limit, window), limit);
        }
        long left = (idx + 1) * window - now;
        long resetNow = count == 0 ? 0 : left;
        if (cost > limit) {
            return Outcome.denied(limit - count, -1, resetNow);
        }
        if (count + cost > limit) {
            return Outcome.denied(limit - count, left, resetNow);
        }
        long expiresAt = keepTtl ? st.expiresAt() : now + left;
        return Outcome.allowed(limit - count, left, resetNow, new WindowState(idx, count + cost, expiresAt));
    }

    /** The count of the reservation's window falls by {@code units}, not below 0 (fixed-window.lua's refund). */
    @Override
    public State refund(State st, long now, long limit, long window, long burst, long at, long units) {
        if (!(st instanceof WindowState w) || w.index != Math.floorDiv(at, window)) {
            return st;
        }
        return new WindowState(w.index, Math.max(0, w.count - units), w.expiresAt());
    }

    /** The current window counts {@code units} more, up to twice the limit (fixed-window.lua's debit). */
    @Override
    public State debit(State st, long now, long limit, long window, long burst, long units) {
        long idx = Math.floorDiv(now, window);
        long count = st instanceof WindowState w && w.index == idx ? w.count : 0;
        long expiresAt = count > 0 ? st.expiresAt() : (idx + 1) * window;
        return new WindowState(idx, Math.min(count + units, 2 * limit), expiresAt);
    }
}
