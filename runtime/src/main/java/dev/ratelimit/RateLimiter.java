package dev.ratelimit;

import java.util.List;
import java.util.Optional;

import io.smallrye.mutiny.Uni;

/**
 * Programmatic access to the configured policies. A {@link RateLimitCheck} says what is asked (policy, key, cost,
 * plan); {@code check} charges it, {@code reserve} charges an estimate to settle later, {@code state} reads it without
 * charging, {@code reset} forgets the key, {@code setOverride} gives the key values of its own. Several checks in one
 * call are all-or-nothing; the string forms are shortcuts for one check on the policy's own values. A request limited
 * over HTTP is counted under an identity that carries its kind ({@link RateLimitKeys} spells them).
 *
 * <pre>
 * &#64;Inject
 * RateLimiter limiter;
 *
 * Uni&lt;RateLimitDecision&gt; d = limiter.check("api", userId);                                // one unit
 * Uni&lt;RateLimitDecision&gt; gold = limiter.check(RateLimitCheck.of("api", userId).cost(3).onPlan("gold"));
 * RateLimitDecision both = limiter.checkBlocking(RateLimitCheck.of("api", userId),          // both or neither
 *         RateLimitCheck.of("writes", userId).cost(5));
 * </pre>
 *
 * The reactive methods never block; the blocking ones must not be called on an event-loop thread.
 */
public interface RateLimiter {

    /**
     * Decides {@code checks} together, all-or-nothing: if one denies, none is charged. Each check is decided on its
     * own plan. The same policy and key more than once is one charge of the summed costs, so those checks must be on
     * the same values (an {@link IllegalArgumentException} otherwise).
     */
    Uni<RateLimitDecision> check(List<RateLimitCheck> checks);

    /** {@link #check(List)} of the checks written inline. */
    default Uni<RateLimitDecision> check(RateLimitCheck... checks) {
        return check(List.of(checks));
    }

    /** Decides one unit of {@code policy} for {@code key}. */
    default Uni<RateLimitDecision> check(String policy, String key) {
        return check(RateLimitCheck.of(policy, key));
    }

    /** Decides {@code cost} units of {@code policy} for {@code key}. */
    default Uni<RateLimitDecision> check(String policy, String key, int cost) {
        return check(RateLimitCheck.of(policy, key).cost(cost));
    }

    /** Blocking form of {@link #check(List)}. */
    default RateLimitDecision checkBlocking(List<RateLimitCheck> checks) {
        return check(checks).await().indefinitely();
    }

    /** Blocking form of {@link #check(RateLimitCheck...)}. */
    default RateLimitDecision checkBlocking(RateLimitCheck... checks) {
        return check(checks).await().indefinitely();
    }

    /** Blocking form of {@link #check(String, String)}. */
    default RateLimitDecision checkBlocking(String policy, String key) {
        return check(policy, key).await().indefinitely();
    }

    /** Blocking form of {@link #check(String, String, int)}. */
    default RateLimitDecision checkBlocking(String policy, String key, int cost) {
        return check(policy, key, cost).await().indefinitely();
    }

    /**
     * Charges {@code checks} at their estimated costs, all-or-nothing as {@link #check(List)}, to be settled at their
     * actual costs when the work ends ({@link Reservation#settle}). Each policy and key is named once.
     */
    Uni<Reservation> reserve(List<RateLimitCheck> checks);

    /** {@link #reserve(List)} of the checks written inline. */
    default Uni<Reservation> reserve(RateLimitCheck... checks) {
        return reserve(List.of(checks));
    }

    /** Blocking form of {@link #reserve(RateLimitCheck...)}. */
    default Reservation reserveBlocking(RateLimitCheck... checks) {
        return reserve(checks).await().indefinitely();
    }

    /**
     * The state of the check's policy for its key, on its plan, as it stands, charging nothing (so its cost plays no
     * part): {@code allowed} is whether one unit would be admitted now, {@code remaining} the units available now
     * (slots free, for a {@code concurrency} policy), {@code retryAfter} the wait for one unit when none is,
     * {@code reset} the wait for more. The backend is asked directly: a failure or a timeout fails the {@code Uni} (no
     * failure mode answers for it).
     */
    Uni<PolicyDecision> state(RateLimitCheck check);

    /** {@link #state(RateLimitCheck)} of {@code policy} for {@code key}, on the policy's own values. */
    default Uni<PolicyDecision> state(String policy, String key) {
        return state(RateLimitCheck.of(policy, key));
    }

    /** Blocking form of {@link #state(RateLimitCheck)}. */
    default PolicyDecision stateBlocking(RateLimitCheck check) {
        return state(check).await().indefinitely();
    }

    /** Blocking form of {@link #state(String, String)}. */
    default PolicyDecision stateBlocking(String policy, String key) {
        return state(policy, key).await().indefinitely();
    }

    /**
     * Forgets what {@code policy} holds for {@code key}, on every plan: the key is idle again (its whole capacity;
     * for a {@code concurrency} policy, no slot held: requests still running release nothing then). Also forgets the
     * key's recent denials kept in this instance and, under the {@code local} failure mode, the state counted here.
     * The backend is asked directly, as for {@link #state(RateLimitCheck)}.
     */
    Uni<Void> reset(String policy, String key);

    /** Blocking form of {@link #reset(String, String)}. */
    default void resetBlocking(String policy, String key) {
        reset(policy, key).await().indefinitely();
    }

    /**
     * Gives {@code key} its own values for {@code policy}, replacing any override it had: every instance applies them
     * from its next decision on that key (the decision reads them in the same Redis call), until
     * {@link RateLimitOverride#expiresAt} or {@link #clearOverride}. The headers and decisions report the values that
     * applied. What the key used so far stays counted against the new values. The policy must set
     * {@code overrides=true}; an {@link IllegalStateException} says so otherwise, an {@link IllegalArgumentException}
     * names a value out of range. The backend is asked directly, as for {@link #state(RateLimitCheck)}; this instance
     * also applies the override under the {@code local} failure mode.
     */
    Uni<Void> setOverride(String policy, String key, RateLimitOverride override);

    /** Blocking form of {@link #setOverride}. */
    default void setOverrideBlocking(String policy, String key, RateLimitOverride override) {
        setOverride(policy, key, override).await().indefinitely();
    }

    /** The override {@code key} has for {@code policy}, empty when none applies (never set, cleared or expired). */
    Uni<Optional<RateLimitOverride>> override(String policy, String key);

    /** Blocking form of {@link #override}. */
    default Optional<RateLimitOverride> overrideBlocking(String policy, String key) {
        return override(policy, key).await().indefinitely();
    }

    /** Removes the override {@code key} has for {@code policy}, if any: the policy's own values apply again. */
    Uni<Void> clearOverride(String policy, String key);

    /** Blocking form of {@link #clearOverride}. */
    default void clearOverrideBlocking(String policy, String key) {
        clearOverride(policy, key).await().indefinitely();
    }
}
