package dev.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A key's own values for a policy with {@code quarkus.ratelimit.policies."<name>".overrides=true}, set at run time
 * with {@link RateLimiter#setOverride}: what it sets replaces the policy's value (or its plan's) for that key, what it
 * leaves unset stays the policy's. Start from the value that changes:
 *
 * <pre>
 * RateLimitOverride.ofLimit(10_000)                                   // the limit only
 * RateLimitOverride.ofLimit(600).withWindow(Duration.ofMinutes(1)).withBurst(50)
 * RateLimitOverride.ofPlan("gold").expiringAfter(Duration.ofDays(30)) // the plan's values, for 30 days
 * </pre>
 *
 * A burst not set follows an overriding limit where the policy's burst is its limit (its default). A plan's values are
 * stored as they are when the override is set.
 *
 * @param limit units per window, 1 to 10,000,000; null: the policy's
 * @param window the window, 1 ms to 366 days; null: the policy's. Only the bucket algorithms ({@code token-bucket},
 *        {@code leaky-bucket}, {@code gcra}) take one: the others keep what a key used for windows of one length
 * @param burst the burst of a bucket algorithm, 1 to 10,000,000; null: the policy's
 * @param plan a plan of the policy whose values the key takes (then neither limit, window nor burst); null: none
 * @param expiresAt when the override stops applying; null: never (until {@link RateLimiter#clearOverride})
 */
public record RateLimitOverride(Long limit, Duration window, Long burst, String plan, Instant expiresAt) {

    public RateLimitOverride {
        if (limit == null && window == null && burst == null && plan == null) {
            throw new IllegalArgumentException("an override sets a limit, a window, a burst or a plan");
        }
        if (plan != null && (limit != null || window != null || burst != null)) {
            throw new IllegalArgumentException("an override to plan '" + plan
                    + "' takes the plan's values: set either the plan or a limit, window and burst");
        }
    }

    /** The key's own limit. */
    public static RateLimitOverride ofLimit(long limit) {
        return new RateLimitOverride(limit, null, null, null, null);
    }

    /** The key's own window. */
    public static RateLimitOverride ofWindow(Duration window) {
        return new RateLimitOverride(null, Objects.requireNonNull(window, "window"), null, null, null);
    }

    /** The key's own burst. */
    public static RateLimitOverride ofBurst(long burst) {
        return new RateLimitOverride(null, null, burst, null, null);
    }

    /** The values of the policy's plan {@code plan} for the key, whatever plan its requests are on. */
    public static RateLimitOverride ofPlan(String plan) {
        return new RateLimitOverride(null, null, null, Objects.requireNonNull(plan, "plan"), null);
    }

    /** This override with its limit set to {@code limit}. */
    public RateLimitOverride withLimit(long limit) {
        return new RateLimitOverride(limit, window, burst, plan, expiresAt);
    }

    /** This override with its window set to {@code window}. */
    public RateLimitOverride withWindow(Duration window) {
        return new RateLimitOverride(limit, Objects.requireNonNull(window, "window"), burst, plan, expiresAt);
    }

    /** This override with its burst set to {@code burst}. */
    public RateLimitOverride withBurst(long burst) {
        return new RateLimitOverride(limit, window, burst, plan, expiresAt);
    }

    /** This override, applying until {@code instant}. */
    public RateLimitOverride until(Instant instant) {
        return new RateLimitOverride(limit, window, burst, plan, Objects.requireNonNull(instant, "instant"));
    }

    /** This override, applying for {@code duration} from now. */
    public RateLimitOverride expiringAfter(Duration duration) {
        return until(Instant.now().plus(duration));
    }
}
