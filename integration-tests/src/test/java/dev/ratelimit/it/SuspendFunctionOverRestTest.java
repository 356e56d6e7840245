package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.retryAfter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * A Kotlin suspend function limited by the interceptor inside a REST call: admitted calls return the function's value
 * (after it suspended), the call past the limit is a 429 with {@code Retry-After}.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class SuspendFunctionOverRestTest {

    TestClient client;

    @BeforeEach
    void idle() {
        client = TestClient.fresh();
        RedisState.flush();
    }

    @Test
    void aLimitedSuspendFunctionAdmitsItsLimitThenDenies() {
        // GET /quotes/{id} calls Quotes.quote, a suspend function limited by policy quotes (2 per minute, global)
        for (int i = 1; i <= 2; i++) {
            Response r = client.given().get("/quotes/q" + i);
            assertEquals(200, r.statusCode(), "quote " + i + ": " + r.asString());
            assertEquals("quote q" + i, r.asString());
        }
        Response denied = client.given().get("/quotes/q3");
        assertEquals(429, denied.statusCode(), denied.asString());
        long retryAfter = retryAfter(denied);
        assertTrue(retryAfter >= 29 && retryAfter <= 30, "one unit per 30 s: Retry-After was " + retryAfter);
        assertEquals("quotes", denied.jsonPath().getString("policy"));
    }
}
