package dev.ratelimit.runtime.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision;

/**
 * The same (policy, key) twice in one call, as a repeated {@code @RateLimit} whose keys resolve alike produces (ip and
 * principal for an anonymous caller): one charge of the summed costs, reported for each check. It used to be charged
 * by the last check only (costs 5 and 1 on a key of 10 left 9). Run on each backend by a subclass.
 */
abstract class DuplicateChecks {

    static final String POLICY_PROPERTIES = "quarkus.ratelimit.policies.api.";

    @Inject
    DefaultRateLimiter limiter;

    @Test
    void theSamePolicyAndKeyTwiceIsChargedOnceWithTheCostsAdded() {
        String key = "dup-" + System.nanoTime();
        RateLimitDecision d = limiter.checkBlocking(RateLimitCheck.of("api", key).cost(5),
                RateLimitCheck.of("api", key));
        assertTrue(d.allowed());
        assertEquals(2, d.policies().size(), "one decision per check, as for distinct keys");
        for (PolicyDecision p : d.policies()) {
            assertEquals(4, p.remaining(), d.toString());
        }
        // 4 left: 3 + 2 do not fit together, and a denied call charges nothing
        RateLimitDecision denied = limiter.checkBlocking(RateLimitCheck.of("api", key).cost(3),
                RateLimitCheck.of("api", key).cost(2));
        assertFalse(denied.allowed(), denied.toString());
        RateLimitDecision rest = limiter.checkBlocking(List.of(RateLimitCheck.of("api", key).cost(4)));
        assertTrue(rest.allowed(), "the denied pair took nothing: 4 are left");
        assertEquals(0, rest.policies().get(0).remaining());
    }
}
