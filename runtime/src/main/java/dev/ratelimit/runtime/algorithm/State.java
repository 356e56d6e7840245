package dev.ratelimit.runtime.algorithm;

/**
 * What one key holds, by the family of algorithms that wrote it: {@link BucketState} (the three bucket algorithms),
 * {@link WindowState} (fixed window), {@link CounterState} (sliding window counter), {@link LogState} (sliding window
 * log), {@link LeaseState} (concurrency). Values are never changed once stored, except a log's times and a lease set,
 * which are changed under their key's lock; a charge stores a new state.
 * <p>
 * {@link #share} is what eviction keeps a state by (see {@code LocalBackend}): written under the key's lock, read by
 * the evicting thread without it.
 */
public abstract sealed class State permits BucketState, WindowState, CounterState, LogState, LeaseState {

    private final long expiresAt;
    private volatile double share;

    State(long expiresAt) {
        this.expiresAt = expiresAt;
    }

    /** The microsecond this state expires at (its key's TTL in Redis): from then on, the key holds nothing. */
    public final long expiresAt() {
        return expiresAt;
    }

    /** The eviction score: the share of its capacity the key had used, or more when it is held at its limit. */
    public final double share() {
        return share;
    }

    public final void share(double share) {
        this.share = share;
    }

    /**
     * The units this state holds in use at {@code now}, in the terms of a policy of {@code limit} per {@code window}
     * reading it after its algorithm changed ({@code units_held} in the prelude).
     */
    abstract long unitsHeld(long now, long limit, long window);

    /** Writes what a charge of {@code cost} units at {@code now} adds besides the state itself (see {@link Outcome#charged}). */
    void charge(long now, long window, long cost, String lease) {
    }
}
