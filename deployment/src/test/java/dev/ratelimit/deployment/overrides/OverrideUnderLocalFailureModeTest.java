package dev.ratelimit.deployment.overrides;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitOverride;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.deployment.resilience.OwnRedis;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.quarkus.test.QuarkusUnitTest;

/**
 * While Redis is away, {@code on-failure=local} applies the overrides this instance set or read: a customer whose
 * limit was raised keeps it, another keeps the policy's.
 */
class OverrideUnderLocalFailureModeTest {

    static final RedisServerProcess REDIS = OwnRedis.of(OverrideUnderLocalFailureModeTest.class);

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class))
            .overrideConfigKey("quarkus.redis.hosts", REDIS.uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.redis.timeout", "200ms")
            .overrideConfigKey("quarkus.ratelimit.policies.api.algorithm", "fixed-window")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.api.overrides", "true")
            .overrideConfigKey("quarkus.ratelimit.policies.api.on-failure", "local");

    @Inject
    RateLimiter limiter;

    @AfterAll
    static void stopRedis() {
        REDIS.stop();
    }

    @Test
    void theLocalFailureModeAppliesTheOverridesThisInstanceKnows() {
        limiter.setOverrideBlocking("api", "raised", RateLimitOverride.ofLimit(5));
        limiter.setOverrideBlocking("api", "cleared", RateLimitOverride.ofLimit(5));
        limiter.clearOverrideBlocking("api", "cleared");
        RateLimitDecision onRedis = limiter.checkBlocking("api", "raised");
        assertEquals(Source.REDIS, onRedis.source());
        assertEquals(5, onRedis.policies().get(0).limit());
        REDIS.kill();
        // counted here from zero: 5 for the raised key, the policy's 2 for the others
        for (int i = 0; i < 5; i++) {
            RateLimitDecision d = limiter.checkBlocking("api", "raised");
            assertTrue(d.allowed(), "request " + (i + 1) + ": " + d);
            assertEquals(Source.LOCAL, d.source());
            assertEquals(5, d.policies().get(0).limit());
        }
        assertFalse(limiter.checkBlocking("api", "raised").allowed());
        for (String other : new String[] { "cleared", "never" }) {
            assertTrue(limiter.checkBlocking("api", other).allowed());
            RateLimitDecision second = limiter.checkBlocking("api", other);
            assertTrue(second.allowed());
            assertEquals(2, second.policies().get(0).limit());
            assertFalse(limiter.checkBlocking("api", other).allowed(), other);
        }
    }
}
