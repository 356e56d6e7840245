package dev.ratelimit;

import java.util.List;

import io.smallrye.mutiny.Uni;

/**
 * Programmatic access to the configured policies. Inject it anywhere:
 *
 * <pre>
 * &#64;Inject
 * RateLimiter limiter;
 *
 * Uni&lt;RateLimitDecision&gt; d = limiter.check("api", userId);
 * Uni&lt;RateLimitDecision&gt; gold = limiter.check("api", "gold", userId, 1); // on the policy's plan "gold"
 * </pre>
 *
 * The reactive methods never block; the blocking ones must not be called on an event-loop thread.
 * <p>
 * A {@code plan} names one of a policy's plans ({@code quarkus.ratelimit.policies."<name>".plans."<plan>".*}), whose
 * values replace the policy's; {@code null} means the policy's own values. It applies to the policies that have
 * plans: a policy without plans ignores it, and a policy with plans but not this one decides on its own values (and
 * logs a warning once per plan name). Without a plan, every check is on the policy's own values.
 */
public interface RateLimiter {

    /** Decides one unit of {@code policy} for {@code key}. */
    default Uni<RateLimitDecision> check(String policy, String key) {
        return check(policy, key, 1);
    }

    /** Decides {@code cost} units of {@code policy} for {@code key}. */
    default Uni<RateLimitDecision> check(String policy, String key, int cost) {
        return check(List.of(new RateLimitCheck(policy, key, cost)));
    }

    /** Decides {@code cost} units of {@code policy} for {@code key} on {@code plan} (null: the policy's own values). */
    default Uni<RateLimitDecision> check(String policy, String plan, String key, int cost) {
        return check(List.of(new RateLimitCheck(policy, key, cost)), plan);
    }

    /** Decides several policies at once, all-or-nothing: if one denies, none is charged. */
    Uni<RateLimitDecision> check(List<RateLimitCheck> checks);

    /**
     * Decides several policies at once, all-or-nothing, each on {@code plan} where it has plans (null: the policies'
     * own values). Implementations that know no plans accept only {@code null}.
     */
    default Uni<RateLimitDecision> check(List<RateLimitCheck> checks, String plan) {
        if (plan != null) {
            throw new UnsupportedOperationException(getClass().getName() + " does not decide on plans");
        }
        return check(checks);
    }

    /** Blocking form of {@link #check(String, String, int)}. */
    default RateLimitDecision checkBlocking(String policy, String key, int cost) {
        return checkBlocking(List.of(new RateLimitCheck(policy, key, cost)));
    }

    /** Blocking form of {@link #check(String, String)}. */
    default RateLimitDecision checkBlocking(String policy, String key) {
        return checkBlocking(policy, key, 1);
    }

    /** Blocking form of {@link #check(String, String, String, int)}. */
    default RateLimitDecision checkBlocking(String policy, String plan, String key, int cost) {
        return checkBlocking(List.of(new RateLimitCheck(policy, key, cost)), plan);
    }

    /** Blocking form of {@link #check(List)}. */
    RateLimitDecision checkBlocking(List<RateLimitCheck> checks);

    /**
     * The state of {@code policy} for {@code key} as it stands, charging nothing: {@code allowed} is whether one unit
     * would be admitted now, {@code remaining} the units available now (slots free, for a {@code concurrency} policy),
     * {@code retryAfter} the wait for one unit when none is, {@code reset} the wait for more. The backend is asked
     * directly: a failure or a timeout fails the {@code Uni} (no failure mode answers for it).
     */
    default Uni<PolicyDecision> state(String policy, String key) {
        return state(policy, null, key);
    }

    /** {@link #state(String, String)} on {@code plan} (null: the policy's own values). */
    default Uni<PolicyDecision> state(String policy, String plan, String key) {
        throw new UnsupportedOperationException(getClass().getName() + " does not read states");
    }

    /**
     * Forgets what {@code policy} holds for {@code key}, on every plan: the key is idle again (its whole capacity;
     * for a {@code concurrency} policy, no slot held: requests still running release nothing then). Also forgets the
     * key's recent denials kept in this instance and, under the {@code local} failure mode, the state counted here.
     */
    default Uni<Void> reset(String policy, String key) {
        throw new UnsupportedOperationException(getClass().getName() + " does not reset keys");
    }

    /** Blocking form of {@link #state(String, String)}. */
    default PolicyDecision stateBlocking(String policy, String key) {
        return state(policy, key).await().indefinitely();
    }

    /** Blocking form of {@link #reset(String, String)}. */
    default void resetBlocking(String policy, String key) {
        reset(policy, key).await().indefinitely();
    }

    /** Blocking form of {@link #check(List, String)}. */
    default RateLimitDecision checkBlocking(List<RateLimitCheck> checks, String plan) {
        return plan == null ? checkBlocking(checks) : check(checks, plan).await().indefinitely();
    }
}
