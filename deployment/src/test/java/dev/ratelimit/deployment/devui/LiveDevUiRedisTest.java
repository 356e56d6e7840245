package dev.ratelimit.deployment.devui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusDevModeTest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** {@link LiveDevUiScenarios} with Redis deciding. */
class LiveDevUiRedisTest extends LiveDevUiScenarios {

    private static final String REDIS = RedisFixture.shared().uri();

    @RegisterExtension
    static final QuarkusDevModeTest TEST = application(String.join("\n",
            "quarkus.redis.hosts=" + REDIS,
            // the shared Redis outlives this application: its keys must not meet those of earlier runs
            "quarkus.ratelimit.key-prefix=devui-" + System.nanoTime()));

    /**
     * A hot key of a policy with {@code lease}: the policies list its slices' size, the status what this instance
     * holds leased, a lookup what it holds of that key.
     */
    @Test
    void leasingIsShown() throws Exception {
        JsonArray policies = devUi.array("policies");
        JsonObject feed = null;
        for (int i = 0; i < policies.size(); i++) {
            if ("feed".equals(policies.getJsonObject(i).getString("name"))) {
                feed = policies.getJsonObject(i);
            }
        }
        assertEquals("auto (slices of up to 100)", feed.getString("lease"), policies::toString);
        for (int i = 0; i < 60; i++) {
            feed("dave");
        }
        JsonObject status = devUi.object("status", Map.of());
        assertTrue(status.getString("leasing", "").contains("keys followed"), status::toString);
        JsonObject dave = lookup("feed", "hdr=dave", null);
        long held = dave.getLong("leasedHere");
        // Redis counts what this instance leased and has not used yet as used; a slice lives 100 ms at most
        assertTrue(held >= 0 && dave.getLong("remaining") <= 1000 - 60, dave::toString);
        JsonObject api = lookup("api", "hdr=dave", null);
        assertFalse(api.containsKey("leasedHere"), "a policy without lease has nothing leased: " + api);
    }

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
