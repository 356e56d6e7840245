package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
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
 * Function libraries of past versions do not pile up: Redis holds three libraries of "past versions" when the
 * application starts, one last loaded 8 days ago, one a day ago, and one this bookkeeping never recorded. Once the
 * application has loaded its own library, the 8-day-old one is gone and the others stay; its own is stamped.
 */
class StaleFunctionLibrariesTest {

    // before REDIS: its initialisation reads them
    static final String REGISTRY = "rl:function-libraries";
    static final long DAY_MS = 86_400_000L;
    static final RedisServerProcess REDIS = withPastVersions(OwnRedis.of(StaleFunctionLibrariesTest.class));

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class))
            .overrideConfigKey("quarkus.redis.hosts", REDIS.uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "1000")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1h");

    @Inject
    DefaultRateLimiter limiter;

    private static RedisServerProcess withPastVersions(RedisServerProcess redis) {
        try (RespClient client = redis.client()) {
            long now = client.callLong("EVAL", "local t = redis.call('TIME') return t[1] * 1000", "0");
            for (String name : List.of("ratelimit_past8days", "ratelimit_past1day", "ratelimit_unrecorded")) {
                client.call("FUNCTION", "LOAD", "REPLACE", "#!lua name=" + name + "\nredis.register_function('" + name
                        + "_f', function() return 1 end)");
            }
            client.call("ZADD", REGISTRY, Long.toString(now - 8 * DAY_MS), "ratelimit_past8days");
            client.call("ZADD", REGISTRY, Long.toString(now - DAY_MS), "ratelimit_past1day");
        }
        return redis;
    }

    @AfterAll
    static void stop() {
        REDIS.stop();
    }

    @Test
    void librariesNotLoadedForAWeekAreDeleted() throws Exception {
        assertEquals(Source.REDIS, limiter.checkBlocking("api", "someone").source());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (libraries().contains("ratelimit_past8days") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        String libraries = libraries();
        assertFalse(libraries.contains("ratelimit_past8days"), () -> "not loaded for 8 days, still there: " + libraries
                + "; recorded " + registryNow());
        assertTrue(libraries.contains("ratelimit_past1day"), () -> "loaded a day ago, deleted: " + libraries);
        assertTrue(libraries.contains("ratelimit_unrecorded"), () -> "never recorded, deleted: " + libraries);
        try (RespClient client = REDIS.client()) {
            @SuppressWarnings("unchecked")
            List<Object> recorded = (List<Object>) client.call("ZRANGE", REGISTRY, "0", "-1");
            String ours = recorded.stream().map(StaleFunctionLibrariesTest::text).filter(n -> !n.equals("ratelimit_past1day"))
                    .findFirst().orElse(null);
            assertNotNull(ours, "the application's own library is stamped");
            assertTrue(libraries.contains(ours), () -> "the stamped library is the one loaded: " + ours);
            assertFalse(recorded.stream().map(StaleFunctionLibrariesTest::text).anyMatch("ratelimit_past8days"::equals));
            assertTrue(client.callLong("PTTL", REGISTRY) > 0, "the registry expires");
        }
    }

    private static String registryNow() {
        try (RespClient client = REDIS.client()) {
            return flatten(client.call("ZRANGE", REGISTRY, "0", "-1", "WITHSCORES"));
        }
    }

    private static String libraries() {
        try (RespClient client = REDIS.client()) {
            return flatten(client.call("FUNCTION", "LIST"));
        }
    }

    private static String flatten(Object reply) {
        if (reply instanceof List<?> list) {
            StringBuilder sb = new StringBuilder();
            for (Object o : list) {
                sb.append(flatten(o)).append(' ');
            }
            return sb.toString();
        }
        return text(reply);
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }
}
