package dev.ratelimit.runtime.algorithm;

/** A concurrency key's leases. */
final class LeaseState extends State {

    final LeaseSet leases;

    LeaseState(LeaseSet leases, long expiresAt) {
        super(expiresAt);
        this.leases = leases;
    }

    /** Never read by a rate algorithm: concurrency keys are apart from theirs ({@link Algorithm#holdsLeases}). */
    @Override
    long unitsHeld(long now, long limit, long window) {
        return 0;
    }

    /** The lease is taken only once the whole decision charges, and holds its slots for a window. */
    @Override
    void charge(long now, long window, long cost, String lease) {
        if (lease == null) {
            throw new IllegalStateException("a concurrency policy charged without a lease");
        }
        leases.take(lease, now + window, cost);
    }
}
