package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.assertPolicy;
import static dev.ratelimit.it.RateLimitHeaders.longHeader;
import static dev.ratelimit.it.RateLimitHeaders.parse;
import static dev.ratelimit.it.RateLimitHeaders.remaining;
import static dev.ratelimit.it.RateLimitHeaders.retryAfter;
import static dev.ratelimit.it.RateLimitHeaders.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * How policies combine over HTTP: separate endpoints, several policies on one method (all or
 * nothing), a policy applied by path without any annotation, a cost above 1, and shadow mode.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class PolicyCompositionTest {

    TestClient client;

    @BeforeEach
    void idle() {
        client = TestClient.fresh();
        RedisState.flush();
    }

    @Test
    void endpointsWithDifferentPoliciesAreLimitedIndependently() {
        for (int i = 0; i < 3; i++) {
            client.given().get("/algorithms/sliding-window-log").then().statusCode(200);
        }
        client.given().get("/algorithms/sliding-window-log").then().statusCode(429);

        // same client, other policies: untouched budgets, and their headers name only their own policy
        for (String other : List.of("fixed-window", "gcra")) {
            Response r = client.given().get("/algorithms/" + other);
            assertEquals(200, r.statusCode(), other + " must not be limited by sliding-window-log");
            assertEquals(Set.of(other), parse(r.header("RateLimit")).keySet());
            assertEquals(2, remaining(r, other));
        }
    }

    @Test
    void aMethodWithTwoPoliciesIsDecidedAllOrNothing() {
        // POST /orders: api (100/min, cost 1) and writes (20/h, cost 5)
        long lastApi = -1;
        for (int i = 1; i <= 4; i++) {
            Response r = postOrder(client);
            assertEquals(200, r.statusCode(), "order " + i);
            assertEquals(Set.of("api", "writes"), parse(r.header("RateLimit")).keySet());
            assertPolicy(r, "api", 100, 60);
            assertPolicy(r, "writes", 20, 3600);
            assertEquals(20 - 5 * i, remaining(r, "writes"), "writes after order " + i);
            lastApi = remaining(r, "api");
            assertTrue(lastApi <= 100 - i + 1, "api is charged by every admitted order, r was " + lastApi);
        }
        assertEquals(20L, RedisState.call("ZCARD", writesKey()), "4 admitted orders logged at cost 5 each");

        // writes is exhausted: the next order is denied, and api is not charged for it
        Response denied = postOrder(client);
        assertEquals(429, denied.statusCode());
        assertEquals("writes", denied.jsonPath().getString("policy"));
        assertEquals(Set.of("api", "writes"), parse(denied.header("RateLimit")).keySet(),
                "the 429 reports every policy of the request");
        assertEquals(0, remaining(denied, "writes"));
        long apiOnDenial = remaining(denied, "api");
        // api refills continuously (100/min): while nothing charges it, its r can only grow
        assertTrue(apiOnDenial >= lastApi, "the denied order charged api: r went from " + lastApi + " to " + apiOnDenial);
        // the binding (most restrictive) policy is writes, for the legacy fields too
        assertEquals(20, longHeader(denied, "X-RateLimit-Limit"));
        assertEquals(0, longHeader(denied, "X-RateLimit-Remaining"));
        long retryAfter = retryAfter(denied);
        assertTrue(retryAfter > 3500 && retryAfter <= 3600,
                "the first order leaves the one-hour log in about an hour; Retry-After was " + retryAfter);

        // more denied orders (Redis or the in-process cache of denials may answer them): none charges anything
        for (int i = 0; i < 5; i++) {
            Response again = postOrder(client);
            assertEquals(429, again.statusCode());
            assertEquals("writes", again.jsonPath().getString("policy"));
            assertEquals(0, remaining(again, "writes"));
            assertTrue(retryAfter(again) <= retryAfter);
        }
        assertEquals(20L, RedisState.call("ZCARD", writesKey()), "denied orders are not logged");

        // a read charges api alone, one unit: api's r is what the first 429 showed, minus this read
        Response read = client.given().get("/orders");
        assertEquals(200, read.statusCode());
        assertEquals(Set.of("api"), parse(read.header("RateLimit")).keySet());
        long afterRead = remaining(read, "api");
        // (api only gains by refill meanwhile; 6 charged denials would show as r about 6 lower)
        assertTrue(afterRead >= apiOnDenial - 1,
                "6 denied orders must leave api untouched: r was " + apiOnDenial + " on the first 429, " + afterRead
                        + " after one read");
    }

    @Test
    void everyDenialOfTheSameRequestReportsTheSameFields() {
        for (int i = 0; i < 4; i++) {
            assertEquals(200, postOrder(client).statusCode());
        }
        // identical requests, all denied by writes: each 429 describes both policies of the request,
        // whether Redis or the in-process cache of recent denials answered it
        for (int i = 1; i <= 3; i++) {
            Response denied = postOrder(client);
            assertEquals(429, denied.statusCode());
            assertEquals(Set.of("api", "writes"), parse(denied.header("RateLimit-Policy")).keySet(),
                    "RateLimit-Policy of denial " + i + ": " + denied.header("RateLimit-Policy"));
            assertEquals(Set.of("api", "writes"), parse(denied.header("RateLimit")).keySet(),
                    "RateLimit of denial " + i + ": " + denied.header("RateLimit"));
            assertTrue(remaining(denied, "api") >= 95, "api was charged 4 times only: " + denied.header("RateLimit"));
        }
    }

    private static Response postOrder(TestClient client) {
        return client.given().contentType(ContentType.JSON).body("{\"item\":\"book\",\"quantity\":1}").post("/orders");
    }

    private String writesKey() {
        List<String> keys = RedisState.keys("rl:*:writes");
        assertEquals(List.of("rl:{" + client.identity() + "}:writes"), keys, "one client, one writes key");
        return keys.get(0);
    }

    @Test
    void aPathPolicyLimitsUnannotatedResourcesUnderItsPrefix() {
        // public: /public/*, sliding-window-log, 10 per 10 s per address; every page shares the budget
        for (int i = 1; i <= 10; i++) {
            Response r = client.given().get("/public/page-" + i);
            assertEquals(200, r.statusCode(), "public page " + i);
            assertEquals("page page-" + i, r.asString());
            assertPolicy(r, "public", 10, 10);
            assertEquals(Set.of("public"), parse(r.header("RateLimit")).keySet());
            long[] rt = state(r, "public");
            assertEquals(10 - i, rt[0]);
            assertTrue(rt[1] >= 1 && rt[1] <= 10, "t was " + rt[1]);
            assertEquals(10, longHeader(r, "X-RateLimit-Limit"));
            assertEquals(10 - i, longHeader(r, "X-RateLimit-Remaining"));
        }
        Response denied = client.given().get("/public/another");
        assertEquals(429, denied.statusCode());
        long retryAfter = retryAfter(denied);
        long t = state(denied, "public")[1];
        assertTrue(retryAfter >= t && retryAfter <= t + 1 && retryAfter <= 10, "Retry-After " + retryAfter + ", t " + t);
        assertEquals("public", denied.jsonPath().getString("policy"));
        assertEquals(1, RedisState.keys("rl:*:public").size());

        // outside the prefix the path policy does not apply
        Response elsewhere = client.given().get("/algorithms/gcra");
        assertEquals(200, elsewhere.statusCode());
        assertFalse(elsewhere.header("RateLimit").contains("\"public\""), elsewhere.header("RateLimit"));
    }

    @Test
    void aCostAboveOneConsumesThatManyUnits() {
        // expensive: token bucket of 10 (per minute), the endpoint costs 4
        Response first = client.given().get("/algorithms/expensive");
        assertEquals(200, first.statusCode());
        assertPolicy(first, "expensive", 10, 60);
        assertEquals(6, remaining(first, "expensive"));
        Response second = client.given().get("/algorithms/expensive");
        assertEquals(200, second.statusCode());
        assertEquals(2, remaining(second, "expensive"));

        Response third = client.given().get("/algorithms/expensive");
        assertEquals(429, third.statusCode());
        long[] rt = state(third, "expensive");
        assertEquals(2, rt[0], "2 units left, not enough for 4: nothing charged");
        // the next unit comes in 6 s; the 2 missing units in 12 s
        assertTrue(rt[1] >= 1 && rt[1] <= 6, "t was " + rt[1]);
        long retryAfter = retryAfter(third);
        assertTrue(retryAfter >= 11 && retryAfter <= 12, "cost 4 with 2 left at 10/min: Retry-After was " + retryAfter);
        assertEquals("expensive", third.jsonPath().getString("policy"));
        assertEquals(retryAfter, third.jsonPath().getLong("retryAfter"));
    }

    @Test
    void shadowModeReportsButNeverDenies() {
        // shadow: 2 per minute, mode=shadow
        long[] expected = { 1, 0, 0, 0, 0, 0 };
        for (int i = 0; i < expected.length; i++) {
            Response r = client.given().get("/algorithms/shadow");
            assertEquals(200, r.statusCode(), "shadow request " + (i + 1) + " must never be denied");
            assertEquals("ok", r.asString());
            assertNull(r.header("Retry-After"));
            assertPolicy(r, "shadow", 2, 60);
            assertEquals(expected[i], remaining(r, "shadow"), "shadow r after request " + (i + 1));
            assertEquals(expected[i], longHeader(r, "X-RateLimit-Remaining"));
        }
    }
}
