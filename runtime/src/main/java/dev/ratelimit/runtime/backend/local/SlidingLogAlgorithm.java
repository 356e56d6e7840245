package dev.ratelimit.runtime.backend.local;

import static dev.ratelimit.runtime.backend.local.LocalAlgorithms.LOG;

import dev.ratelimit.runtime.backend.local.LocalAlgorithms.Outcome;
import dev.ratelimit.runtime.backend.local.LocalAlgorithms.State;

/**
 * The sliding window log in process, as {@code sliding-window-log.lua} decides it, number for number.
 */
final class SlidingLogAlgorithm {

    private SlidingLogAlgorithm() {
    }

    static Outcome check(State st, long now, long limit, long window, long cost) {
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
}
