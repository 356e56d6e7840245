package dev.ratelimit;

import java.time.Duration;

/**
 * The outcome of one policy within a {@link RateLimitDecision}.
 *
 * @param policy the policy name
 * @param limit the policy's limit (requests per window)
 * @param window the policy's window
 * @param allowed whether this policy alone would admit the request
 * @param remaining units left after this request (not charged when the request is denied)
 * @param retryAfter when denied, how long until this request (with its cost) could be admitted by
 *        this policy; when allowed, {@link Duration#ZERO}, or for a call of a bucket policy with {@code max-wait}
 *        admitted at its turn, how long after the decision the turn came (the call went on then)
 * @param reset how long until more quota becomes available for this policy
 * @param shadow whether the policy runs in shadow mode (reported, never enforced)
 */
public record PolicyDecision(String policy, long limit, Duration window, boolean allowed, long remaining,
        Duration retryAfter, Duration reset, boolean shadow) {

    /**
     * Whole seconds, rounded up and at least 1, until this request could be admitted by this policy.
     */
    public long retryAfterSeconds() {
        return Math.max(1, ceilSeconds(retryAfter));
    }

    /**
     * The window in whole seconds, rounded up (the {@code w} of {@code RateLimit-Policy}).
     */
    public long windowSeconds() {
        return ceilSeconds(window);
    }

    /**
     * Whole seconds, rounded up, until more quota becomes available.
     */
    public long resetSeconds() {
        return ceilSeconds(reset);
    }

    static long ceilSeconds(Duration d) {
        long ms = d.toMillis();
        return (ms + 999) / 1000;
    }
}
