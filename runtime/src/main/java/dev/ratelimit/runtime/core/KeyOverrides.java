package dev.ratelimit.runtime.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeSet;

import dev.ratelimit.RateLimitOverride;
import dev.ratelimit.runtime.backend.KeyOverride;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.LimitValues;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.policy.PolicyValidator;
import io.smallrye.mutiny.Uni;

/**
 * The limiter's side of live overrides ({@code overrides=true}): checks what is asked against the policy, turns it
 * into what the backends store ({@link KeyOverride}) and back, and tells the in-process backend what this instance
 * learns, so that the {@code local} failure mode applies it too.
 */
final class KeyOverrides {

    private final PolicyRegistry policies;
    private final RateLimitBackend backend;
    private final LocalBackend local;
    private final String keyPrefix;
    private final Duration timeout;
    private final RateLimitMetrics metrics;

    KeyOverrides(PolicyRegistry policies, RateLimitBackend backend, LocalBackend local, String keyPrefix,
            Duration timeout, RateLimitMetrics metrics) {
        this.policies = policies;
        this.backend = backend;
        this.local = local;
        this.keyPrefix = keyPrefix;
        this.timeout = timeout;
        this.metrics = metrics;
    }

    Uni<Void> set(String policy, String key, RateLimitOverride override) {
        Policy p = taking(policy);
        KeyOverride o = stored(p, override);
        String k = RedisKeys.key(keyPrefix, p, key);
        return DirectCalls.within(backend.setOverride(k, o), timeout).invoke(() -> {
            learnt(k, o);
            metrics.overridden(p.name(), true);
        });
    }

    Uni<Optional<RateLimitOverride>> get(String policy, String key) {
        Policy p = taking(policy);
        String k = RedisKeys.key(keyPrefix, p, key);
        return DirectCalls.within(backend.readOverride(k), timeout).map(o -> {
            KeyOverride live = o == null || o.expired(nowMicros()) ? null : o;
            learnt(k, live);
            return Optional.ofNullable(live).map(KeyOverrides::asked);
        });
    }

    Uni<Void> clear(String policy, String key) {
        String k = RedisKeys.key(keyPrefix, taking(policy), key);
        return DirectCalls.within(backend.clearOverride(k), timeout).invoke(() -> {
            learnt(k, null);
            metrics.overridden(policy, false);
        });
    }

    /** The policy, when it takes overrides. */
    private Policy taking(String policy) {
        Policy p = policies.get(policy);
        if (!p.overrides()) {
            throw new IllegalStateException("Policy '" + policy + "' takes no per-key overrides: set "
                    + PolicyValidator.property(policy, "overrides") + "=true");
        }
        return p;
    }

    /** What the backends store for {@code override} of {@code p}, or why it cannot be. */
    private KeyOverride stored(Policy p, RateLimitOverride override) {
        long expiresAt = 0;
        if (override.expiresAt() != null) {
            expiresAt = Math.multiplyExact(override.expiresAt().getEpochSecond(), 1_000_000L)
                    + override.expiresAt().getNano() / 1000;
            if (expiresAt <= nowMicros()) {
                throw new IllegalArgumentException("The override of policy '" + p.name() + "' expires at "
                        + override.expiresAt() + ", which has passed: give an instant to come");
            }
        }
        if (override.plan() != null) {
            Map<String, Policy> plans = policies.plans(p.name());
            Policy plan = plans.get(override.plan());
            if (plan == null) {
                throw new IllegalArgumentException("Policy '" + p.name() + "' has no plan '" + override.plan()
                        + "'" + (plans.isEmpty() ? "" : "; its plans: " + String.join(", ", new TreeSet<>(plans.keySet()))));
            }
            return new KeyOverride(plan.limit(), plan.windowMicros(), plan.burst(), expiresAt, override.plan());
        }
        List<String> errors = new ArrayList<>();
        LimitValues own = new LimitValues(asInt(override.limit()), Optional.ofNullable(override.window()),
                asInt(override.burst()));
        LimitValues base = new LimitValues(OptionalInt.of((int) p.limit()), Optional.of(p.window()),
                OptionalInt.of((int) p.burst()));
        PolicyValidator.validateOverride(p.name(), p.algorithm(), base, own, a -> "the override's " + a, errors);
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", errors));
        }
        return new KeyOverride(override.limit() == null ? 0 : override.limit(),
                override.window() == null ? 0 : override.window().toNanos() / 1000,
                override.burst() == null ? 0 : override.burst(), expiresAt, null);
    }

    /** What was asked, as a stored override says it. */
    private static RateLimitOverride asked(KeyOverride o) {
        Instant expiresAt = o.expiresAtMicros() == 0 ? null
                : Instant.ofEpochSecond(o.expiresAtMicros() / 1_000_000, o.expiresAtMicros() % 1_000_000 * 1000);
        if (o.plan() != null) {
            return new RateLimitOverride(null, null, null, o.plan(), expiresAt);
        }
        return new RateLimitOverride(o.limit() == 0 ? null : o.limit(),
                o.windowMicros() == 0 ? null : Duration.ofNanos(o.windowMicros() * 1000),
                o.burst() == 0 ? null : o.burst(), null, expiresAt);
    }

    /** A value out of an int's range stays out of the validator's range (it reports it). */
    private static OptionalInt asInt(Long v) {
        if (v == null) {
            return OptionalInt.empty();
        }
        return OptionalInt.of((int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v)));
    }

    /** The in-process backend applies what the shared one holds, for when it decides in its place. */
    private void learnt(String key, KeyOverride o) {
        if (local != backend) {
            local.rememberOverride(key, o);
        }
    }

    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }
}
