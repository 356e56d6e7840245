package dev.ratelimit.deployment.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;

/**
 * With {@code quarkus.ratelimit.redis.client-name}, the limiter decides on that Redis client: here the only one
 * configured, which nothing in the application injects, so the extension's request is what makes Quarkus create it.
 */
class NamedRedisClientTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("quarkus.ratelimit.redis.client-name", "limits")
            .overrideConfigKey("quarkus.redis.limits.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.named.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.named.window", "1m");

    @Inject
    DefaultRateLimiter limiter;

    @Test
    void decidesOnTheNamedClient() {
        String key = "named-" + System.nanoTime();
        expect(true, limiter.checkBlocking("named", key));
        expect(true, limiter.checkBlocking("named", key));
        expect(false, limiter.checkBlocking("named", key));
    }

    private static void expect(boolean allowed, RateLimitDecision d) {
        assertEquals(Source.REDIS, d.source(), d::toString);
        assertEquals(allowed, d.allowed(), d::toString);
    }
}
