package dev.ratelimit.runtime.policy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Checks one policy's values. Used at build time (for the values the build can see) and again at
 * start-up (for the values that count), so both report the same messages, each naming the exact
 * property to fix.
 */
public final class PolicyValidator {

    /**
     * The largest limit and burst, and the longest window and full refill, at which every decision is exact (see the
     * scripts: products of these stay below the 2^53 a Lua number holds exactly).
     */
    public static final long MAX_UNITS = 10_000_000;
    public static final Duration MAX_WINDOW = Duration.ofDays(366);

    private PolicyValidator() {
    }

    /** The property name of a policy attribute, quoted only where the name needs it. */
    public static String property(String policy, String attribute) {
        boolean plain = policy.matches("[A-Za-z0-9_-]+");
        return "quarkus.ratelimit.policies." + (plain ? policy : '"' + policy + '"') + "." + attribute;
    }

    /** Adds a message to {@code errors} for each problem of this policy. */
    public static void validate(String policy, String algorithm, OptionalInt limit, Optional<Duration> window,
            OptionalInt burst, String key, String mode, List<String> errors) {
        Algorithm alg = Algorithm.fromConfigName(algorithm);
        if (alg == null) {
            errors.add(String.format("Unknown algorithm '%s' for policy '%s': set %s to one of %s", algorithm, policy,
                    property(policy, "algorithm"), Algorithm.names()));
        }
        if (limit.isEmpty()) {
            errors.add(String.format("Policy '%s' has no limit: set %s to a positive number of requests per window",
                    policy, property(policy, "limit")));
        } else if (limit.getAsInt() <= 0) {
            errors.add(String.format("Policy '%s' has limit %d: set %s to a positive number", policy, limit.getAsInt(),
                    property(policy, "limit")));
        } else if (limit.getAsInt() > MAX_UNITS) {
            errors.add(String.format("Policy '%s' has limit %d: decisions are exact up to %d units per window; set %s "
                    + "to at most %d (a shorter window keeps the rate)", policy, limit.getAsInt(), MAX_UNITS,
                    property(policy, "limit"), MAX_UNITS));
        }
        if (window.isEmpty()) {
            errors.add(String.format("Policy '%s' has no window: set %s to a duration such as 1s, 1m or 1h", policy,
                    property(policy, "window")));
        } else if (window.get().toMillis() < 1) {
            errors.add(String.format("Policy '%s' has window %s: set %s to at least 1ms", policy, window.get(),
                    property(policy, "window")));
        } else if (window.get().compareTo(MAX_WINDOW) > 0) {
            errors.add(String.format("Policy '%s' has window %s: set %s to at most 366d", policy, window.get(),
                    property(policy, "window")));
        } else if (window.get().toNanos() % 1000 != 0) {
            errors.add(String.format("Policy '%s' has window %s: Redis times in microseconds; set %s to a whole "
                    + "number of microseconds", policy, window.get(), property(policy, "window")));
        }
        if (burst.isPresent()) {
            if (burst.getAsInt() <= 0) {
                errors.add(String.format("Policy '%s' has burst %d: set %s to a positive number or remove it", policy,
                        burst.getAsInt(), property(policy, "burst")));
            } else if (burst.getAsInt() > MAX_UNITS) {
                errors.add(String.format("Policy '%s' has burst %d: decisions are exact up to %d; set %s to at most %d",
                        policy, burst.getAsInt(), MAX_UNITS, property(policy, "burst"), MAX_UNITS));
            } else if (alg != null && !alg.usesBurst()) {
                errors.add(String.format("Policy '%s' uses %s, which has no burst: remove %s or use token-bucket, "
                        + "leaky-bucket or gcra", policy, algorithm, property(policy, "burst")));
            }
        }
        if (alg != null && alg.usesBurst() && limit.isPresent() && limit.getAsInt() > 0 && window.isPresent()
                && window.get().toMillis() >= 1) {
            long b = burst.orElse(limit.getAsInt());
            // a full refill takes burst * window / limit; beyond MAX_WINDOW a bucket's times leave the exact range
            if (b > 0 && window.get().dividedBy(limit.getAsInt()).multipliedBy(b).compareTo(MAX_WINDOW) > 0) {
                errors.add(String.format("Policy '%s' refills its burst of %d in %s (burst x window / limit): keep that "
                        + "within 366d by lowering %s or raising %s", policy, b,
                        window.get().dividedBy(limit.getAsInt()).multipliedBy(b), property(policy, "burst"),
                        property(policy, "limit")));
            }
        }
        String keyError = KeySource.validate(key);
        if (keyError != null) {
            errors.add(String.format("Policy '%s' has key '%s': %s (property %s)", policy, key, keyError,
                    property(policy, "key")));
        }
        if (PolicyMode.fromConfigName(mode) == null) {
            errors.add(String.format("Policy '%s' has mode '%s': set %s to %s or %s", policy, mode,
                    property(policy, "mode"), PolicyMode.ENFORCE.configName(), PolicyMode.SHADOW.configName()));
        }
    }
}
