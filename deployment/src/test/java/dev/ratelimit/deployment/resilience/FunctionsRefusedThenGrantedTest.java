package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Redis refuses {@code FUNCTION LOAD} at start-up (the user's ACL lacks {@code FUNCTION}, as a cautious operator sets
 * it): decisions run as scripts, and are right. Once the operator grants the command, the library is offered again and
 * decisions go to the functions, without a restart. Before, one refusal turned functions off for the life of the
 * process.
 */
class FunctionsRefusedThenGrantedTest {

    static final RedisServerProcess REDIS = withoutFunctionCommand(OwnRedis.of(FunctionsRefusedThenGrantedTest.class));

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class))
            .overrideConfigKey("quarkus.redis.hosts", REDIS.uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "1000")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1h");

    @Inject
    DefaultRateLimiter limiter;

    private static RedisServerProcess withoutFunctionCommand(RedisServerProcess redis) {
        try (RespClient client = redis.client()) {
            client.call("ACL", "SETUSER", "default", "-function");
        }
        return redis;
    }

    @AfterAll
    static void stop() {
        REDIS.stop();
    }

    @Test
    void functionsComeBackOnceTheOperatorGrantsThem() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertEquals(Source.REDIS, limiter.checkBlocking("api", "refused").source());
        }
        assertEquals(0, OwnRedis.calls(REDIS, "fcall"), "refused: decisions are scripts");
        assertTrue(OwnRedis.calls(REDIS, "evalsha") + OwnRedis.calls(REDIS, "eval") >= 5);
        try (RespClient client = REDIS.client()) {
            client.call("ACL", "SETUSER", "default", "+function");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (OwnRedis.calls(REDIS, "fcall") == 0 && System.nanoTime() < deadline) {
            assertEquals(Source.REDIS, limiter.checkBlocking("api", "granted").source());
            Thread.sleep(200);
        }
        assertTrue(OwnRedis.calls(REDIS, "fcall") > 0, "the library was offered again and decisions call it");
    }
}
