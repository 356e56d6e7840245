package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.longHeader;
import static dev.ratelimit.it.RateLimitHeaders.retryAfter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * {@code quarkus.ratelimit.http.headers=legacy}: only {@code X-RateLimit-*}, no IETF fields.
 */
@QuarkusTest
@TestProfile(LegacyHeadersTest.Legacy.class)
@QuarkusTestResource(RedisTestResource.class)
class LegacyHeadersTest {

    public static class Legacy implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.ratelimit.http.headers", "legacy");
        }
    }

    TestClient client;

    @BeforeEach
    void idle() {
        client = TestClient.fresh();
        RedisState.flush();
    }

    @Test
    void onlyLegacyHeadersAreSent() {
        // partner: gcra, 5 per minute per API key
        for (int i = 1; i <= 5; i++) {
            Response r = client.given().header("X-Api-Key", "legacy").get("/partner");
            assertEquals(200, r.statusCode());
            assertNull(r.header("RateLimit"), "no IETF RateLimit field with headers=legacy");
            assertNull(r.header("RateLimit-Policy"), "no IETF RateLimit-Policy field with headers=legacy");
            assertEquals(5, longHeader(r, "X-RateLimit-Limit"));
            assertEquals(5 - i, longHeader(r, "X-RateLimit-Remaining"));
            long reset = longHeader(r, "X-RateLimit-Reset");
            assertTrue(reset >= 1 && reset <= 12, "one unit comes back every 12 s; reset " + reset);
        }
        Response denied = client.given().header("X-Api-Key", "legacy").get("/partner");
        assertEquals(429, denied.statusCode());
        long retryAfter = retryAfter(denied);
        assertNull(denied.header("RateLimit"));
        assertNull(denied.header("RateLimit-Policy"));
        assertEquals(0, longHeader(denied, "X-RateLimit-Remaining"));
        assertEquals(5, longHeader(denied, "X-RateLimit-Limit"));
        assertTrue(longHeader(denied, "X-RateLimit-Reset") <= retryAfter);
        assertEquals("partner", denied.jsonPath().getString("policy"));
    }
}
