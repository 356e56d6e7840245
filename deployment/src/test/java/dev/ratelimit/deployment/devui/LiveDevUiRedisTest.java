package dev.ratelimit.deployment.devui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusDevModeTest;
import io.vertx.core.json.JsonObject;

/** {@link LiveDevUiScenarios} with Redis deciding. */
class LiveDevUiRedisTest extends LiveDevUiScenarios {

    private static final String REDIS = RedisFixture.shared().uri();

    @RegisterExtension
    static final QuarkusDevModeTest TEST = application(String.join("\n",
            "quarkus.redis.hosts=" + REDIS,
            // the shared Redis outlives this application: its keys must not meet those of earlier runs
            "quarkus.ratelimit.key-prefix=devui-" + System.nanoTime()));

    @Override
    void statusNamesTheBackend(JsonObject status) {
        assertEquals("redis", status.getString("backend"), status::toString);
        assertTrue(status.getString("reason").startsWith("Configured: quarkus.ratelimit.backend=redis"),
                status::toString);
        // the address as configured, credentials (an external test Redis may have some) left out
        assertEquals(REDIS.replaceFirst("//[^@/]*@", "//"), status.getString("redis"), status::toString);
        assertTrue(status.getBoolean("redisReachable"), status::toString);
        assertEquals("closed", status.getString("circuitBreaker"), status::toString);
    }
}
