package dev.ratelimit.runtime.algorithm;

/**
 * An algorithm deciding in process, the twin of its Lua script: the same semantics and the same arithmetic, so both
 * backends give the same reply for the same state, number for number. The caller stores each key's {@link State},
 * locks the key around every call and keeps to this order: {@link #read} the stored state, {@link #decide} on it, and
 * once every policy of the call admits, store the outcome's {@link Outcome#charged charged} state.
 * <p>
 * Every quantity is an exact integer: a bucket's time is a pair {@code a + b / limit} microseconds (see
 * {@code bucket.lua}), the counter's weighted estimate is compared by exact products, and waits are whole
 * microseconds rounded up. A key holding another algorithm's state (a policy whose algorithm changed) is read as the
 * units that state holds in use ({@link State#unitsHeld}), as the scripts' prelude reads it.
 */
public interface InProcessAlgorithm {

    /** The Lua source this class mirrors, relative to {@code dev/ratelimit/lua/}. */
    String script();

    /**
     * The state this algorithm reads from the state stored under a key ({@code null}: none, or expired); when it is
     * not {@code stored} itself, the caller stores it in place of {@code stored} ({@code null}: removes it) whatever
     * is then decided, as a script converting another algorithm's state when it reads it does.
     */
    default State read(State stored, long now, long limit, long window) {
        return stored;
    }

    /**
     * The verdict on one key at {@code now}, from the state {@link #read} returned, for a request of {@code cost}
     * units. {@code lease}: the lease a charge would take (null for every other call).
     */
    Outcome decide(State state, long now, long limit, long window, long burst, long cost, String lease);

    /**
     * As {@link #decide(State, long, long, long, long, long, String)}, for a call that may wait ({@code max-wait}):
     * an algorithm taking turns (the buckets) admits a cost that does not fit now at the next turn within {@code turn}
     * µs, charged now, its outcome's {@link Outcome#retry} saying when the turn comes. The others decide now.
     */
    default Outcome decide(State state, long now, long limit, long window, long burst, long cost, String lease,
            long turn) {
        return decide(state, now, limit, window, burst, cost, lease);
    }

    /**
     * Frees what lease {@code lease} holds under a key whose stored state is {@code stored} (possibly expired) at
     * {@code now}, for an algorithm {@link Algorithm#holdsLeases holding leases}. Returns the state to store: {@code
     * stored} itself (possibly changed in place), another (to store instead) or {@code null} (nothing left).
     */
    default State release(State stored, String lease, long now, long window) {
        return stored;
    }

    /**
     * Gives {@code units} back to a key whose stored state is {@code stored} (null: none, or expired) at {@code now},
     * for a reservation charged at the microsecond {@code at} that keeps less than it reserved: never more than the key
     * holds in use (the refund of the algorithm's script in {@code R}, see {@code decide.lua}). Returns the state to
     * store, as {@link #release} does. By default nothing is given back (a concurrency policy has nothing to settle).
     */
    default State refund(State stored, long now, long limit, long window, long burst, long at, long units) {
        return stored;
    }

    /**
     * Gives back {@code units} a leased slice charged at {@code at} did not use (mode {@code G} of the scripts): as
     * {@link #refund}, except that a bucket gets back only what cannot have refilled since the charge (see
     * {@code bucket_refund} in {@code bucket.lua}).
     */
    default State giveBack(State stored, long now, long limit, long window, long burst, long at, long units) {
        return refund(stored, now, limit, window, burst, at, units);
    }

    /**
     * Charges {@code units} more at {@code now} to a key whose stored state is {@code stored} (null: none, or expired),
     * for a reservation whose work cost more than it reserved: into debt if need be, at most one capacity beyond it
     * (the debit of the algorithm's script in {@code D}). Returns the state to store. By default nothing is charged.
     */
    default State debit(State stored, long now, long limit, long window, long burst, long units) {
        return stored;
    }
}
