package dev.ratelimit.runtime.algorithm;

/**
 * Requests in flight in process, as {@code concurrency.lua} decides them, number for number: at most {@code limit}
 * units held by unexpired leases; retry-after and reset are the time until the soonest lease expires, at most a
 * second. The lease itself is taken when the call is charged ({@link LeaseState#charge}), and freed as
 * {@code release.lua} frees it.
 */
final class ConcurrencyAlgorithm implements InProcessAlgorithm {

    private static final long SECOND = 1_000_000;

    @Override
    public String script() {
        return "concurrency.lua";
    }

    /** {@code lease}: the lease a charge would take (null for a check); a lease released already is refused. */
    @Override
    public Outcome decide(State st, long now, long limit, long window, long burst, long cost, String lease) {
        // a concurrency key holds nothing but leases (its keys are apart from the rate algorithms')
        LeaseSet leases = st instanceof LeaseState l ? l.leases : null;
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
        long expiresAt = Math.max(now + window, leases == null ? 0 : st.expiresAt());
        return Outcome.allowed(avail, reset, soonest,
                new LeaseState(leases == null ? new LeaseSet() : leases, expiresAt));
    }

    /**
     * A lease not held is remembered for a window (a tombstone), so a charge of it made later takes nothing; an
     * expired lease not yet trimmed is still found, as ZREM finds it ({@code release.lua}).
     */
    @Override
    public State release(State stored, String lease, long now, long window) {
        if (stored != null && !(stored instanceof LeaseState)) {
            return stored; // a value no concurrency policy wrote: nothing of ours to free or guard (as release.lua)
        }
        LeaseSet leases = stored == null ? new LeaseSet() : ((LeaseState) stored).leases;
        long tombstone = now + window;
        leases.release(lease, tombstone);
        if (leases.isEmpty()) {
            return null;
        }
        if (stored == null || stored.expiresAt() < tombstone && leases.released(lease)) {
            return new LeaseState(leases, Math.max(tombstone, stored == null ? 0 : stored.expiresAt()));
        }
        return stored;
    }
}
