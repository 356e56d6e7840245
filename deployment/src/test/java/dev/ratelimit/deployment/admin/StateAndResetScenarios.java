package dev.ratelimit.deployment.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@link RateLimiter#state} reads a key without charging it and {@link RateLimiter#reset} makes it idle again, for
 * every algorithm (one policy each, named after it, capacity 3), on the backend of the subclass.
 */
abstract class StateAndResetScenarios {

    static final String[] ALGORITHMS = { "fixed-window", "sliding-window-log", "sliding-window-counter",
            "token-bucket", "leaky-bucket", "gcra", "concurrency" };

    /** An application with one policy per algorithm: 3 per hour (3 in flight, for concurrency). */
    static QuarkusUnitTest application() {
        QuarkusUnitTest t = new QuarkusUnitTest();
        for (String a : ALGORITHMS) {
            t.overrideConfigKey("quarkus.ratelimit.policies." + a + ".algorithm", a)
                    .overrideConfigKey("quarkus.ratelimit.policies." + a + ".limit", "3")
                    .overrideConfigKey("quarkus.ratelimit.policies." + a + ".window", "1h");
        }
        return t;
    }

    @Inject
    RateLimiter limiter;

    protected abstract RateLimitDecision.Source expectedSource();

    @ParameterizedTest
    @ValueSource(strings = { "fixed-window", "sliding-window-log", "sliding-window-counter", "token-bucket",
            "leaky-bucket", "gcra", "concurrency" })
    void stateChargesNothingAndResetMakesTheKeyIdle(String policy) {
        String key = "admin-" + UUID.randomUUID();
        PolicyDecision idle = limiter.stateBlocking(policy, key);
        assertTrue(idle.allowed(), idle::toString);
        assertEquals(3, idle.remaining(), () -> "an idle key: " + idle);
        assertEquals(Duration.ZERO, idle.retryAfter(), idle::toString);

        List<RateLimitDecision> taken = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RateLimitDecision d = limiter.checkBlocking(policy, key);
            assertTrue(d.allowed(), d::toString);
            assertEquals(expectedSource(), d.source());
            taken.add(d);
        }
        for (int i = 0; i < 3; i++) {
            PolicyDecision s = limiter.stateBlocking(policy, key);
            assertEquals(1, s.remaining(), () -> "after two units, read again and again: " + s);
            assertTrue(s.allowed(), s::toString);
            assertTrue(s.reset().compareTo(Duration.ZERO) > 0, () -> "more quota comes back later: " + s);
        }
        assertTrue(limiter.checkBlocking(policy, key).allowed(), "the reads charged nothing: the third unit is there");
        PolicyDecision full = limiter.stateBlocking(policy, key);
        assertFalse(full.allowed(), full::toString);
        assertEquals(0, full.remaining(), full::toString);
        assertTrue(full.retryAfter().compareTo(Duration.ZERO) > 0, () -> "the wait for one unit: " + full);
        assertFalse(limiter.checkBlocking(policy, key).allowed(), "exhausted");

        limiter.resetBlocking(policy, key);
        PolicyDecision again = limiter.stateBlocking(policy, key);
        assertEquals(3, again.remaining(), () -> "idle after a reset: " + again);
        for (int i = 0; i < 3; i++) {
            assertTrue(limiter.checkBlocking(policy, key).allowed(), "unit " + i + " after the reset");
        }
        assertFalse(limiter.checkBlocking(policy, key).allowed(), "and no more");
        taken.forEach(RateLimitDecision::release);
    }

    @ParameterizedTest
    @ValueSource(strings = { "nope" })
    void anUnknownPolicyIsRefusedByName(String policy) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> limiter.state(policy, "k"));
        assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> limiter.reset(policy, "k"));
    }
}
