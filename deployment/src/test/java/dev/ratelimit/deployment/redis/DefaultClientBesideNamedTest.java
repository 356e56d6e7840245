package dev.ratelimit.deployment.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.redis.client.RedisClientName;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.mutiny.redis.client.Redis;

/**
 * Without {@code quarkus.ratelimit.redis.client-name} the limiter decides on the default client, also when the
 * application has named clients of its own.
 */
class DefaultClientBesideNamedTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(UsesOtherClient.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.other.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.named.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.named.window", "1m");

    @Singleton
    static class UsesOtherClient {
        @Inject
        @RedisClientName("other")
        Redis other;
    }

    @Inject
    DefaultRateLimiter limiter;

    @Inject
    UsesOtherClient app;

    @Test
    void decidesOnTheDefaultClient() {
        String key = "default-" + System.nanoTime();
        expect(true, limiter.checkBlocking("named", key));
        expect(true, limiter.checkBlocking("named", key));
        expect(false, limiter.checkBlocking("named", key));
        assertEquals(true, app.other != null);
    }

    private static void expect(boolean allowed, RateLimitDecision d) {
        assertEquals(Source.REDIS, d.source(), d::toString);
        assertEquals(allowed, d.allowed(), d::toString);
    }
}
