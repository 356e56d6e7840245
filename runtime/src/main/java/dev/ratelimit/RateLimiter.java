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
 * </pre>
 *
 * The reactive methods never block; the blocking ones must not be called on an event-loop thread.
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

    /** Decides several policies at once, all-or-nothing: if one denies, none is charged. */
    Uni<RateLimitDecision> check(List<RateLimitCheck> checks);

    /** Blocking form of {@link #check(String, String, int)}. */
    default RateLimitDecision checkBlocking(String policy, String key, int cost) {
        return checkBlocking(List.of(new RateLimitCheck(policy, key, cost)));
    }

    /** Blocking form of {@link #check(String, String)}. */
    default RateLimitDecision checkBlocking(String policy, String key) {
        return checkBlocking(policy, key, 1);
    }

    /** Blocking form of {@link #check(List)}. */
    RateLimitDecision checkBlocking(List<RateLimitCheck> checks);
}
