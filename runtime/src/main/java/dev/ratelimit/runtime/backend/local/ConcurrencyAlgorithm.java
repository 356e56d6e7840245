package dev.ratelimit.runtime.backend.local;

import static dev.ratelimit.runtime.backend.local.LocalAlgorithms.CONCURRENCY;

import dev.ratelimit.runtime.backend.local.LocalAlgorithms.Outcome;
import dev.ratelimit.runtime.backend.local.LocalAlgorithms.State;

/**
 * Requests in flight in process, as {@code concurrency.lua} decides them, number for number: at most {@code limit}
 * units held by unexpired leases; retry-after and reset are the time until the soonest lease expires, at most a
 * second. The lease itself is taken when the call is charged ({@link LocalBackend}).
 */
final class ConcurrencyAlgorithm {

    private static final long SECOND = 1_000_000;

    private ConcurrencyAlgorithm() {
    }

    /** {@code lease}: the lease a charge would take (null for a check); a lease released already is refused. */
    static Outcome check(State st, long now, long limit, long window, long cost, String lease) {
        // a concurrency key holds nothing but leases (its keys are apart from the rate algorithms')
        LeaseSet leases = st != null && st.kind == CONCURRENCY ? st.leases : null;
        long held = 0;
        long soonest = 0;
        if (leases != null) {
            leases.expire(now);
            held = leases.units();
            if (held > 0) {
                soonest = Math.min(leases.soonest() - now, SECOND);
            }
        }
        long avail = Math.max(0, limit - held);
        if (cost > limit) {
            return Outcome.denied(avail, -1, soonest);
        }
        if (cost > avail) {
            return Outcome.denied(avail, soonest, soonest);
        }
        if (lease != null && leases != null && leases.released(lease)) {
            // its caller gave up on it and released it before this charge arrived: never admitted (concurrency.lua)
            return Outcome.denied(avail, -1, soonest);
        }
        long reset = held == 0 ? Math.min(window, SECOND) : soonest;
        long expiresAt = Math.max(now + window, leases == null ? 0 : st.expiresAt);
        Outcome o = Outcome.allowed(avail, reset, soonest,
                new State(CONCURRENCY, leases == null ? new LeaseSet() : leases, expiresAt));
        o.leaseExpiresAt = now + window;
        return o;
    }
}
