package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.assertNoRateLimitHeaders;
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
 * {@code quarkus.ratelimit.http.headers=none}: no rate-limit fields at all, but a 429 still says
 * when to retry.
 */
@QuarkusTest
@TestProfile(NoHeadersTest.None.class)
@QuarkusTestResource(RedisTestResource.class)
class NoHeadersTest {

    public static class None implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.ratelimit.http.headers", "none");
        }
    }

    TestClient client;

    @BeforeEach
    void idle() {
        client = TestClient.fresh();
        RedisState.flush();
    }

    @Test
    void noRateLimitHeadersButRetryAfterOn429() {
        for (int i = 1; i <= 5; i++) {
            Response r = client.given().header("X-Api-Key", "quiet").get("/partner");
            assertEquals(200, r.statusCode());
            assertNoRateLimitHeaders(r);
            assertNull(r.header("Retry-After"));
        }
        Response denied = client.given().header("X-Api-Key", "quiet").get("/partner");
        assertEquals(429, denied.statusCode());
        assertNoRateLimitHeaders(denied);
        long retryAfter = retryAfter(denied);
        assertTrue(retryAfter >= 11 && retryAfter <= 12, "gcra, 5 per minute: one unit every 12 s; Retry-After " + retryAfter);
        assertTrue(denied.contentType().startsWith("application/problem+json"));
        assertEquals(retryAfter, denied.jsonPath().getLong("retryAfter"));

        // a denial raised by a bean inside REST: still Retry-After, still no other field
        for (int i = 0; i < 3; i++) {
            client.given().queryParam("to", "n" + i).post("/mail").then().statusCode(200);
        }
        Response mailDenied = client.given().queryParam("to", "n4").post("/mail");
        assertEquals(429, mailDenied.statusCode());
        assertNoRateLimitHeaders(mailDenied);
        retryAfter(mailDenied);
    }
}
