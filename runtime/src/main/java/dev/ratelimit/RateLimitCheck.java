package dev.ratelimit;

import java.util.Objects;

/**
 * One policy to apply to a request: the policy name, the identity it is counted against, and the
 * units the request consumes. Several checks passed to {@link RateLimiter#check(java.util.List)} are
 * decided all-or-nothing.
 *
 * @param policy the policy name, as configured under {@code quarkus.ratelimit.policies}
 * @param key the identity (a client address, a user name, an API key...); any string is safe
 * @param cost the units to consume, positive
 */
public record RateLimitCheck(String policy, String key, int cost) {

    public RateLimitCheck {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(key, "key");
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be positive, got " + cost + " for policy '" + policy + "'");
        }
    }
}
