package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.remaining;
import static dev.ratelimit.it.RateLimitHeaders.retryAfter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * The interceptor and the REST filter together: a denial raised by a bean inside a REST call is a 429
 * with {@code Retry-After}, and a limited resource method is decided once per request (by the filter),
 * not a second time by the interceptor.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class InterceptorOverRestTest {

    TestClient client;

    @BeforeEach
    void idle() {
        client = TestClient.fresh();
        RedisState.flush();
    }

    @Test
    void aDenialInsideABeanBecomesA429WithRetryAfter() {
        // POST /mail calls Mailer.send, limited by policy mail (3 per minute, global)
        for (int i = 1; i <= 3; i++) {
            Response r = client.given().queryParam("to", "r" + i).post("/mail");
            assertEquals(200, r.statusCode(), "mail " + i);
            assertEquals("sent to r" + i, r.asString());
            // admitted by the bean's interceptor: the response still reports the budget it used
            assertEquals(3 - i, remaining(r, "mail"), "RateLimit header of an admitted interceptor decision");
        }
        Response denied = client.given().queryParam("to", "r4").post("/mail");
        assertEquals(429, denied.statusCode());
        long retryAfter = retryAfter(denied);
        assertTrue(retryAfter >= 19 && retryAfter <= 20, "one unit per 20 s: Retry-After was " + retryAfter);
        assertTrue(denied.contentType().startsWith("application/problem+json"), denied.contentType());
        assertEquals("mail", denied.jsonPath().getString("policy"));
        assertEquals(429, denied.jsonPath().getInt("status"));
        assertEquals(retryAfter, denied.jsonPath().getLong("retryAfter"));
        assertEquals(0, remaining(denied, "mail"));
    }

    @Test
    void aLimitedResourceMethodIsDecidedOncePerRequest() {
        // sliding-window-log: 3 per 2 s, every admitted unit is one entry of the log
        for (int i = 1; i <= 3; i++) {
            Response r = client.given().get("/algorithms/sliding-window-log");
            assertEquals(200, r.statusCode(), "request " + i + " of 3 must be admitted (decided twice, it would not)");
            assertEquals(3 - i, remaining(r, "sliding-window-log"));
        }
        assertEquals(429, client.given().get("/algorithms/sliding-window-log").statusCode());
        String key = "rl:{" + client.identity() + "}:sliding-window-log";
        assertEquals(List.of(key), RedisState.keys("rl:*:sliding-window-log"));
        assertEquals(3L, RedisState.call("ZCARD", key), "3 requests consumed exactly 3 units");
    }
}
