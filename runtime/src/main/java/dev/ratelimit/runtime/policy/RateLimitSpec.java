package dev.ratelimit.runtime.policy;

/**
 * One {@code @RateLimit} as the build read it.
 *
 * @param policy the policy name
 * @param cost the units a call consumes
 * @param key the key source override, or {@code null} for the policy's own
 * @param settle whether the call settles its actual cost ({@code @RateLimit(settle = true)})
 */
public record RateLimitSpec(String policy, int cost, String key, boolean settle) {
}
