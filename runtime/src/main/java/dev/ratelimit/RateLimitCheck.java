package dev.ratelimit;

import java.util.Objects;

/**
 * What one check asks of a policy: the policy name, the identity it is counted against, the units it consumes and
 * the plan whose values decide it. Start from {@link #of(String, String)} (one unit, the policy's own values) and
 * change what differs:
 *
 * <pre>
 * RateLimitCheck.of("api", userId).cost(3).onPlan("gold")
 * </pre>
 *
 * Several checks passed to one {@link RateLimiter#check(RateLimitCheck...)} are decided all-or-nothing, each on its
 * own plan.
 *
 * @param policy the policy name, as configured under {@code quarkus.ratelimit.policies}
 * @param key the identity (a client address, a user name, an API key...); any string is safe
 * @param cost the units to consume, positive
 * @param plan one of the policy's plans ({@code quarkus.ratelimit.policies."<name>".plans."<plan>".*}), whose values
 *        replace the policy's; {@code null} for the policy's own values. A policy without plans ignores it; a policy
 *        with plans but not this one decides on its own values and logs a warning once per plan name.
 */
public record RateLimitCheck(String policy, String key, int cost, String plan) {

    public RateLimitCheck {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(key, "key");
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be positive, got " + cost + " for policy '" + policy + "'");
        }
    }

    /** One unit of {@code policy} for {@code key}, on the policy's own values. */
    public static RateLimitCheck of(String policy, String key) {
        return new RateLimitCheck(policy, key, 1, null);
    }

    /** This check consuming {@code units} instead. */
    public RateLimitCheck cost(int units) {
        return new RateLimitCheck(policy, key, units, plan);
    }

    /** This check decided on the policy's plan {@code name} ({@code null}: the policy's own values). */
    public RateLimitCheck onPlan(String name) {
        return new RateLimitCheck(policy, key, cost, name);
    }
}
