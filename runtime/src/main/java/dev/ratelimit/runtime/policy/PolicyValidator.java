package dev.ratelimit.runtime.policy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.UnaryOperator;

import dev.ratelimit.runtime.algorithm.Algorithm;

/**
 * Checks one policy's values, and those of its plans, once the configuration mapping has read them (the algorithm,
 * mode and failure mode are enums it checked). Used at build time (for the values the build can see) and again at
 * start-up (for the values that count), so both report the same messages, each naming the exact property to fix.
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
        return "quarkus.ratelimit.policies." + name(policy) + "." + attribute;
    }

    /** The property name of a plan's attribute ({@code limit}, {@code window}, {@code burst}). */
    public static String planProperty(String policy, String plan, String attribute) {
        return "quarkus.ratelimit.policies." + name(policy) + ".plans." + name(plan) + "." + attribute;
    }

    private static String name(String name) {
        return name.matches("[A-Za-z0-9_-]+") ? name : '"' + name + '"';
    }

    /**
     * Adds a message to {@code errors} for each problem of this policy's limit, window and burst (the key and the paths
     * have checks of their own: {@code KeySource.validate}, {@link PathPattern#problem}).
     */
    public static void validate(String policy, Algorithm algorithm, LimitValues values, List<String> errors) {
        limitValues("Policy '" + policy + "'", a -> property(policy, a), algorithm, values, values, true, errors);
    }

    /**
     * Adds a message to {@code errors} for each problem of one plan of a policy: the values it sets are held to the
     * same ranges as a policy's, and together with those it takes from the policy ({@code base}) they must refill a
     * bucket within the longest window. A value it takes from the policy is the policy's to report.
     */
    public static void validatePlan(String policy, String plan, Algorithm alg, LimitValues base, LimitValues own,
            List<String> errors) {
        int before = errors.size();
        limitValues("Plan '" + plan + "' of policy '" + policy + "'", a -> planProperty(policy, plan, a), alg, own,
                own.orElse(base), false, errors);
        Optional<Duration> window = own.window();
        if (errors.size() == before && alg.countsInAlignedWindows() && window.isPresent()
                && base.window().isPresent() && !window.get().equals(base.window().get())) {
            // fixed-window and the counter keep a count per window, indexed by now / window: under another window
            // the index means another interval, and a client switching plans would start from zero at every switch
            errors.add(String.format("Plan '%s' of policy '%s' has window %s where the policy has %s: %s counts in "
                    + "windows of one length, so a client moving between plans would start a new count at every "
                    + "switch. Remove %s (a plan of a window algorithm differs in limit only), or use "
                    + "a bucket algorithm (%s), which keeps what a client used across plans of any window "
                    + "(sliding-window-log keeps what the window it last wrote under holds)", plan, policy, window.get(),
                    base.window().get(), alg.configName(),
                    planProperty(policy, plan, "window"), property(policy, "algorithm")));
        }
    }

    /**
     * Adds a message to {@code errors} for each problem of a key's override of a policy ({@code own}, over the
     * policy's values {@code base}): the ranges of a policy's values, a refill within the longest window, and no
     * window of its own where the algorithm counts in windows of one length. {@code what} names the override's
     * attributes ({@code limit}, {@code window}, {@code burst}) for the message.
     */
    public static void validateOverride(String policy, Algorithm alg, LimitValues base, LimitValues own,
            UnaryOperator<String> what, List<String> errors) {
        int before = errors.size();
        limitValues("The override of policy '" + policy + "'", what, alg, own, own.orElse(base), false, errors);
        if (errors.size() == before && !alg.usesBurst() && own.window().isPresent()
                && !own.window().equals(base.window())) {
            // fixed-window and the counter index their counts by now / window; a log forgets its entries, and a set
            // of leases its slots, one window after they were written (the key's TTL): under a longer window a key
            // would start from zero or from less than it used
            errors.add(String.format("The override of policy '%s' has window %s where the policy has %s: %s keeps "
                    + "what a key used for windows of one length, so the key would lose count of it; override the "
                    + "limit only, or use a bucket algorithm (token-bucket, leaky-bucket or gcra: %s), whose state "
                    + "holds under any window", policy, own.window().get(), base.window().get(), alg.configName(),
                    property(policy, "algorithm")));
        }
    }

    /**
     * The checks of a limit, window and burst. {@code own} are the values to range-check (a plan's own), {@code all}
     * the values that decide (a plan's over its policy's); a missing limit or window is a problem when
     * {@code required}.
     */
    private static void limitValues(String subject, UnaryOperator<String> property, Algorithm alg, LimitValues own,
            LimitValues all, boolean required, List<String> errors) {
        OptionalInt limit = own.limit();
        Optional<Duration> window = own.window();
        OptionalInt burst = own.burst();
        if (limit.isEmpty()) {
            if (required) {
                errors.add(String.format("%s has no limit: set %s to a positive number of requests per window", subject,
                        property.apply("limit")));
            }
        } else if (limit.getAsInt() <= 0) {
            errors.add(String.format("%s has limit %d: set %s to a positive number", subject, limit.getAsInt(),
                    property.apply("limit")));
        } else if (limit.getAsInt() > MAX_UNITS) {
            errors.add(String.format("%s has limit %d: decisions are exact up to %d units per window; set %s "
                    + "to at most %d (a shorter window keeps the rate)", subject, limit.getAsInt(), MAX_UNITS,
                    property.apply("limit"), MAX_UNITS));
        }
        if (window.isEmpty()) {
            if (required) {
                errors.add(String.format("%s has no window: set %s to a duration such as 1s, 1m or 1h", subject,
                        property.apply("window")));
            }
        } else if (window.get().toMillis() < 1) {
            errors.add(String.format("%s has window %s: set %s to at least 1ms", subject, window.get(),
                    property.apply("window")));
        } else if (window.get().compareTo(MAX_WINDOW) > 0) {
            errors.add(String.format("%s has window %s: set %s to at most 366d", subject, window.get(),
                    property.apply("window")));
        } else if (window.get().toNanos() % 1000 != 0) {
            errors.add(String.format("%s has window %s: Redis times in microseconds; set %s to a whole "
                    + "number of microseconds", subject, window.get(), property.apply("window")));
        }
        if (burst.isPresent()) {
            if (burst.getAsInt() <= 0) {
                errors.add(String.format("%s has burst %d: set %s to a positive number or remove it", subject,
                        burst.getAsInt(), property.apply("burst")));
            } else if (burst.getAsInt() > MAX_UNITS) {
                errors.add(String.format("%s has burst %d: decisions are exact up to %d; set %s to at most %d",
                        subject, burst.getAsInt(), MAX_UNITS, property.apply("burst"), MAX_UNITS));
            } else if (!alg.usesBurst()) {
                errors.add(String.format("%s uses %s, which has no burst: remove %s or use token-bucket, "
                        + "leaky-bucket or gcra", subject, alg.configName(), property.apply("burst")));
            }
        }
        OptionalInt l = all.limit();
        Optional<Duration> w = all.window();
        if (alg.usesBurst() && !own.isEmpty() && l.isPresent() && l.getAsInt() > 0 && w.isPresent()
                && w.get().toMillis() >= 1) {
            long b = all.burst().orElse(l.getAsInt());
            // a full refill takes burst * window / limit; beyond MAX_WINDOW a bucket's times leave the exact range
            Duration refill = w.get().dividedBy(l.getAsInt()).multipliedBy(b);
            if (b > 0 && refill.compareTo(MAX_WINDOW) > 0) {
                errors.add(String.format("%s refills its burst of %d in %s (burst x window / limit): keep that "
                        + "within 366d by lowering %s or raising %s", subject, b, refill, property.apply("burst"),
                        property.apply("limit")));
            }
        }
    }

    /**
     * Checks a policy's lock-out ({@code block-for}): from 1 ms to 366 days, a whole number of microseconds, and only
     * where a denial means something to lock out: not with {@code mode=shadow} (which never denies) nor with
     * {@code concurrency} (a slot frees when a request ends, which no lock-out should outlast).
     */
    public static void validateLockout(String policy, Algorithm algorithm, boolean shadow, Duration blockFor,
            List<String> errors) {
        String property = property(policy, "block-for");
        String subject = "Policy '" + policy + "'";
        if (blockFor.toMillis() < 1) {
            errors.add(String.format("%s has block-for %s: set %s to at least 1ms, or remove it for no lock-out",
                    subject, blockFor, property));
        } else if (blockFor.compareTo(MAX_WINDOW) > 0) {
            errors.add(String.format("%s has block-for %s: set %s to at most 366d", subject, blockFor, property));
        } else if (blockFor.toNanos() % 1000 != 0) {
            errors.add(String.format("%s has block-for %s: Redis times in microseconds; set %s to a whole number of "
                    + "microseconds", subject, blockFor, property));
        }
        if (shadow) {
            errors.add(String.format("%s has block-for with mode=shadow: a shadow policy never denies, so it never "
                    + "locks a key out; remove %s or set %s to enforce", subject, property,
                    property(policy, "mode")));
        }
        if (algorithm.holdsLeases()) {
            errors.add(String.format("%s has block-for with algorithm=concurrency: a slot is free again when a request "
                    + "ends, and a lock-out would outlast it; remove %s, or add a rate policy with block-for",
                    subject, property));
        }
    }

    /**
     * What is wrong with a policy's quota leasing ({@code lease}), or null: {@code off}, {@code auto} or a whole number
     * of units from 8 to the policy's capacity (a smaller slice is not worth its two Redis calls), and only where a slice can be
     * bounded: not {@code concurrency} (a slot is no unit to lease), not {@code sliding-window-log} (each entry keeps
     * its own instant, which a slice would move), not counting by outcome (each request is reserved and settled).
     */
    public static String leaseProblem(String policy, Algorithm algorithm, String lease, boolean countsAll,
            LimitValues values) {
        String property = property(policy, "lease");
        String subject = "Policy '" + policy + "' has lease=" + lease;
        long units;
        try {
            units = leaseUnits(lease);
        } catch (IllegalArgumentException e) {
            return String.format("%s: set %s to off, auto or the most units of one slice (a whole number)", subject,
                    property);
        }
        if (units == Policy.LEASE_OFF) {
            return null;
        }
        if (algorithm.holdsLeases()) {
            return String.format("%s with algorithm=concurrency: a slot is held by one request, not a unit an instance "
                    + "can lease; remove %s", subject, property);
        }
        if (algorithm == Algorithm.SLIDING_WINDOW_LOG) {
            return String.format("%s with algorithm=sliding-window-log: the log keeps each request's own instant, which a "
                    + "slice charged earlier would move; remove %s, or use sliding-window-counter or a bucket algorithm",
                    subject, property);
        }
        if (!countsAll) {
            return String.format("%s with count other than all: each request is reserved and settled by its outcome, "
                    + "and none is admitted from a slice; remove %s or count all requests", subject, property);
        }
        if (units > 0) {
            long capacity = algorithm.usesBurst() && values.burst().isPresent() ? values.burst().getAsInt()
                    : values.limit().orElse(Integer.MAX_VALUE);
            if (units < 8 || units > capacity) {
                return String.format("%s: a slice holds from 8 units (fewer are not worth the two Redis calls of a slice) "
                        + "to the policy's capacity (%d); set %s within it, or to auto", subject, capacity, property);
            }
        }
        return null;
    }

    /** The units of {@code lease}: {@link Policy#LEASE_OFF}, {@link Policy#LEASE_AUTO} or a positive number. */
    public static long leaseUnits(String lease) {
        String v = lease.trim();
        if (v.equalsIgnoreCase("off") || v.equalsIgnoreCase("false")) {
            return Policy.LEASE_OFF;
        }
        if (v.equalsIgnoreCase("auto") || v.equalsIgnoreCase("true")) {
            return Policy.LEASE_AUTO;
        }
        try {
            long n = Long.parseLong(v);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("lease must be off, auto or a positive number of units, got '" + lease + "'");
    }

    /**
     * What is wrong with a policy's {@code max-wait}, or null: from 1 ms to 1 h, and only where a denial ends at a
     * known time: not {@code concurrency} (a slot frees when some request ends, which no denial can tell), not
     * {@code mode=shadow} (which never denies).
     */
    public static String maxWaitProblem(String policy, Algorithm algorithm, boolean shadow, Duration maxWait) {
        String property = property(policy, "max-wait");
        String subject = "Policy '" + policy + "' has max-wait " + maxWait;
        if (maxWait.toMillis() < 1 || maxWait.compareTo(Duration.ofHours(1)) > 0) {
            return String.format("%s: set %s from 1ms to 1h, or remove it for no wait", subject, property);
        }
        if (algorithm.holdsLeases()) {
            return String.format("%s with algorithm=concurrency: a slot is freed when a request ends, at no time a "
                    + "denial can tell; remove %s", subject, property);
        }
        if (shadow) {
            return String.format("%s with mode=shadow: a shadow policy never denies, so nothing waits; remove %s",
                    subject, property);
        }
        return null;
    }
}
