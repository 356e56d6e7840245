package dev.ratelimit.runtime.policy;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.runtime.algorithm.Algorithm;

/**
 * A resolved, validated policy: what the backends need to decide it.
 *
 * @param name the policy name
 * @param algorithm the algorithm
 * @param limit units per window
 * @param window the window
 * @param burst capacity of an idle key (the limit for window algorithms)
 * @param key the key source expression
 * @param shadow whether it only reports
 * @param onFailure the failure mode
 * @param paths path patterns the policy applies to without annotation (empty: none)
 * @param methods HTTP methods those paths apply to (empty: all)
 * @param blockFor how long a key it denies stays denied, whatever its algorithm says ({@link Duration#ZERO}: no
 *        lock-out); never with {@code shadow}
 * @param counted the HTTP responses it counts ({@code count}); the others give their unit back
 * @param overrides whether a key's own values set at run time replace these ({@code overrides})
 * @param lease quota leasing ({@code lease}): {@link #LEASE_OFF}, {@link #LEASE_AUTO} or the most units of a slice
 * @param maxWait how long a call it denies waits for admission instead ({@code max-wait}; {@link Duration#ZERO}: none)
 */
public record Policy(String name, Algorithm algorithm, long limit, Duration window, long burst, String key,
        boolean shadow, FailureMode onFailure, List<String> paths, List<String> methods, Duration blockFor,
        CountedOutcomes counted, boolean overrides, long lease, Duration maxWait) {

    /** {@code lease=off}: every call decided in Redis. */
    public static final long LEASE_OFF = 0;
    /** {@code lease=auto}: slices of at most a tenth of the capacity. */
    public static final long LEASE_AUTO = -1;

    /** A policy without waiting. */
    public Policy(String name, Algorithm algorithm, long limit, Duration window, long burst, String key, boolean shadow,
            FailureMode onFailure, List<String> paths, List<String> methods, Duration blockFor,
            CountedOutcomes counted, boolean overrides, long lease) {
        this(name, algorithm, limit, window, burst, key, shadow, onFailure, paths, methods, blockFor, counted, overrides,
                lease, Duration.ZERO);
    }

    /** A policy without quota leasing. */
    public Policy(String name, Algorithm algorithm, long limit, Duration window, long burst, String key, boolean shadow,
            FailureMode onFailure, List<String> paths, List<String> methods, Duration blockFor,
            CountedOutcomes counted, boolean overrides) {
        this(name, algorithm, limit, window, burst, key, shadow, onFailure, paths, methods, blockFor, counted, overrides,
                LEASE_OFF);
    }

    /** A policy without overrides. */
    public Policy(String name, Algorithm algorithm, long limit, Duration window, long burst, String key, boolean shadow,
            FailureMode onFailure, List<String> paths, List<String> methods, Duration blockFor,
            CountedOutcomes counted) {
        this(name, algorithm, limit, window, burst, key, shadow, onFailure, paths, methods, blockFor, counted, false);
    }

    /** A policy counting every response. */
    public Policy(String name, Algorithm algorithm, long limit, Duration window, long burst, String key, boolean shadow,
            FailureMode onFailure, List<String> paths, List<String> methods, Duration blockFor) {
        this(name, algorithm, limit, window, burst, key, shadow, onFailure, paths, methods, blockFor,
                CountedOutcomes.ALL);
    }

    /** A policy not bound to paths (programmatic use and tests). */
    public Policy(String name, Algorithm algorithm, long limit, Duration window, long burst, String key, boolean shadow,
            FailureMode onFailure) {
        this(name, algorithm, limit, window, burst, key, shadow, onFailure, List.of(), List.of(), Duration.ZERO);
    }

    /** The lock-out in microseconds, as the scripts take it (0: none). */
    public long blockForMicros() {
        return blockFor.toNanos() / 1000;
    }

    /** Whether units it charged may come back (it counts HTTP responses by outcome): its denials can end early. */
    public boolean givesBack() {
        return !counted.all();
    }

    /** Whether a key it denies is locked out for {@link #blockFor}. */
    public boolean locksOut() {
        return !blockFor.isZero();
    }

    /** The window in microseconds, as the scripts take it. */
    public long windowMicros() {
        return window.toNanos() / 1000;
    }

    /**
     * This policy with another limit, window (in microseconds) and burst: what it is for a key whose override sets
     * them (the same name, hence the same Redis key).
     */
    public Policy withValues(long limit, long windowMicros, long burst) {
        if (limit == this.limit && windowMicros == windowMicros() && burst == this.burst) {
            return this;
        }
        return new Policy(name, algorithm, limit, Duration.ofNanos(windowMicros * 1000), burst, key, shadow, onFailure,
                paths, methods, blockFor, counted, overrides, lease, maxWait);
    }

    /** Whether a call it denies may wait for admission ({@code max-wait}). */
    public boolean waits() {
        return !maxWait.isZero();
    }

    /** Whether this instance may lease slices of its keys ({@code lease}). */
    public boolean leases() {
        return lease != LEASE_OFF;
    }

    /** The most units one slice holds: {@code lease=<n>} (at most the capacity), or a tenth of the capacity (at least 1) for {@code auto}. */
    public long leaseMost() {
        return lease > 0 ? Math.min(lease, capacity()) : lease == LEASE_AUTO ? Math.max(1, capacity() / 10) : 0;
    }

    /** Whether one of {@code policies} has overrides: a call naming it is replied the values that applied. */
    public static boolean anyOverrides(Policy[] policies) {
        for (Policy p : policies) {
            if (p.overrides) {
                return true;
            }
        }
        return false;
    }

    /** The most units one request may consume: more could never be admitted. */
    public long capacity() {
        return algorithm.usesBurst() ? burst : limit;
    }
}
