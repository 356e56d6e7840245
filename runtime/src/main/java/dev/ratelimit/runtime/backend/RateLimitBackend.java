package dev.ratelimit.runtime.backend;

import java.util.List;
import java.util.Map;

import dev.ratelimit.runtime.policy.Policy;
import io.smallrye.mutiny.Uni;

/**
 * Decides a set of policies for one request, all-or-nothing. Both backends (Redis and in-process)
 * implement the same algorithms with the same semantics.
 */
public interface RateLimitBackend {

    /** Passed as {@code nowMicros} to use the backend's own clock (Redis {@code TIME}). */
    long BACKEND_CLOCK = -1;

    /**
     * Decides (and unless {@code dryRun}, charges) every policy.
     *
     * @param policies the policies, one per key
     * @param keys the full keys (see {@link RedisKeys#key})
     * @param costs the units each policy consumes
     * @param nowMicros the time in microseconds, or {@link #BACKEND_CLOCK}
     * @param dryRun decide without charging
     * @return what every policy answered
     */
    default Uni<BackendReply> decide(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun) {
        return decide(policies, keys, costs, nowMicros, dryRun, null);
    }

    /**
     * Decides (and unless {@code dryRun}, charges) every policy; the {@code concurrency} policies it admits take slots
     * named {@code lease}, held until {@link #release} or until their window passes.
     *
     * @param lease an id unique to this call, needed when a {@code concurrency} policy is charged; else null
     */
    Uni<BackendReply> decide(Policy[] policies, String[] keys, long[] costs, long nowMicros, boolean dryRun,
            String lease);

    /**
     * Decides and charges as {@link #decide} does, for a call that may wait ({@code max-wait}): a bucket policy
     * (token-bucket, leaky-bucket, gcra) whose cost does not fit now takes the next turn on its key when it comes within
     * {@code turnMicros}: the call is charged now and admitted, its {@link BackendReply#retryMillis} saying in how
     * many milliseconds (rounded up) its turn comes. The key's time moves past that turn, so calls waiting on one key
     * are served in the order the backend charged them. The other algorithms decide now; so does a call whose keys
     * live in several cluster slots, and every call on a backend without turns (this default): such calls wait by
     * trying again.
     */
    default Uni<BackendReply> decideInTurn(Policy[] policies, String[] keys, long[] costs, long nowMicros,
            long turnMicros) {
        return decide(policies, keys, costs, nowMicros, false, null);
    }

    /**
     * Charges a reservation: decides and charges as {@link #decide} does, and an admitted reply says when it was
     * charged ({@link BackendReply#chargedAt}), which its settlement names. A call whose policies live in several
     * cluster slots is charged at one instant per slot: it is settled slot by slot, each at its own.
     */
    Uni<BackendReply> reserve(Policy[] policies, String[] keys, long[] costs, long nowMicros, String lease);

    /**
     * Settles a reservation charged at {@code chargedAt}: each policy gives back {@code refunds[i]} units (0: none) of
     * what it charged, never more than its key holds in use, or when negative charges that many more, into debt if
     * need be (at most one capacity beyond it); then replies each key's state as it stands (as {@link #peek} does). A
     * policy with nothing to settle ({@code concurrency}) is only read.
     *
     * @param chargedAt per policy, the instant its charge was made ({@link BackendReply#chargedAt})
     */
    Uni<BackendReply> settle(Policy[] policies, String[] keys, long[] refunds, long[] chargedAt, long nowMicros);

    /**
     * Gives back what a leased slice charged at {@code chargedAt} did not use ({@code unused[i]} units, never
     * negative): as {@link #settle}, except that a bucket policy gets back only what cannot have refilled since the
     * charge (moved back by the time those units took less the time passed since), so that what was given back is
     * never given twice and leasing keeps its bound. By default the window policies are settled and the bucket
     * policies keep their units: a backend that does not know the difference must not give a bucket more.
     */
    default Uni<BackendReply> giveBack(Policy[] policies, String[] keys, long[] unused, long[] chargedAt,
            long nowMicros) {
        long[] refunds = unused.clone();
        for (int i = 0; i < policies.length; i++) {
            if (policies[i].algorithm().usesBurst()) {
                refunds[i] = 0;
            }
        }
        return settle(policies, keys, refunds, chargedAt, nowMicros);
    }

    /**
     * Frees the slots the {@code concurrency} policies among {@code policies} took for {@code lease} (the other
     * policies are ignored), on the backend's clock; see {@link #release(Policy[], String[], long[], String, long)}.
     */
    default Uni<Void> release(Policy[] policies, String[] keys, long[] costs, String lease) {
        return release(policies, keys, costs, lease, BACKEND_CLOCK);
    }

    /**
     * Frees the slots the {@code concurrency} policies among {@code policies} took for {@code lease} (the other
     * policies are ignored). Slots already gone are no error; a lease not held (its charge not made yet, or never) is
     * remembered for the policy's window, so that its charge, should it still arrive, takes nothing: a release may
     * overtake its charge (a call given up on while its charge was on its way) and still leave no slot held.
     *
     * @param nowMicros the time in microseconds, or {@link #BACKEND_CLOCK}
     */
    Uni<Void> release(Policy[] policies, String[] keys, long[] costs, String lease, long nowMicros);

    /**
     * The state of {@code policy}'s {@code key} as it stands, charging nothing: the reply of a check of one unit,
     * remaining and reset as they are now.
     */
    Uni<BackendReply> peek(Policy policy, String key);

    /**
     * Sets the override of {@code key} (see {@link KeyOverride}), replacing any: the decisions on that key apply it
     * from the next one on, until it expires. A backend that keeps no overrides fails (the default).
     */
    default Uni<Void> setOverride(String key, KeyOverride override) {
        return Uni.createFrom().failure(noOverrides());
    }

    /** The override of {@code key} as stored, expired or not; null when there is none. */
    default Uni<KeyOverride> readOverride(String key) {
        return Uni.createFrom().failure(noOverrides());
    }

    /** Removes the override of {@code key}, if any. */
    default Uni<Void> clearOverride(String key) {
        return Uni.createFrom().failure(noOverrides());
    }

    /**
     * Whether this backend applies the keys' overrides of policies with {@code overrides=true} (the default: it does
     * not, and such a policy is refused at start).
     */
    default boolean keepsOverrides() {
        return false;
    }

    private UnsupportedOperationException noOverrides() {
        return new UnsupportedOperationException("the rate-limit backend '" + name()
                + "' keeps no per-key overrides: remove overrides=true from the policies, or use the redis backend");
    }

    /**
     * Adds {@code denials} (identity as stored in the keys, to how many times it was denied) to the shared tally
     * {@code tally} (one policy's minute), which lives {@code ttlMillis} and keeps the {@code keep} identities denied
     * most. The in-process backend keeps it in the instance (the default: nothing kept).
     */
    default Uni<Void> addDenials(String tally, Map<String, Long> denials, long ttlMillis, int keep) {
        return Uni.createFrom().voidItem();
    }

    /** The tallies {@code tallies} (see {@link #addDenials}), summed per identity. */
    default Uni<Map<String, Long>> denials(List<String> tallies) {
        return Uni.createFrom().item(Map.of());
    }

    /** Forgets the state of {@code key}: an idle key again. */
    Uni<Void> forget(String key);

    /** Whether the backend answers (Redis: {@code PING}); the in-process backend always does. */
    default Uni<Void> ping() {
        return Uni.createFrom().voidItem();
    }

    /** A short name for logs and metrics. */
    String name();
}
