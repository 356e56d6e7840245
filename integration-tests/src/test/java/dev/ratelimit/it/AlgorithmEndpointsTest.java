package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.assertPolicy;
import static dev.ratelimit.it.RateLimitHeaders.longHeader;
import static dev.ratelimit.it.RateLimitHeaders.retryAfter;
import static dev.ratelimit.it.RateLimitHeaders.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;

/**
 * Every algorithm behind a real HTTP endpoint and a real Redis: each policy is 3 per 2 seconds, so an
 * idle client gets exactly 3, then a 429 whose headers and body agree with each other, and after
 * waiting what {@code Retry-After} said it is admitted again.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class AlgorithmEndpointsTest {

    static final int LIMIT = 3;
    static final int WINDOW_SECONDS = 2;

    /**
     * The bucket algorithms give a unit back every 667 ms (3 per 2 s): the 4 requests of a burst must
     * all land within that for the outcome to be exact. On a machine too busy for that, the burst is
     * tried again with a new client (the outcome was then legitimately different, not wrong).
     */
    static final long BURST_MILLIS = 600;
    static final int ATTEMPTS = 3;

    TestClient client;

    private void freshClient() {
        client = TestClient.fresh();
        // warm the request path up (a slow first request could outlast a refill), then start from idle keys
        client.given().get("/orders").then().statusCode(200);
        RedisState.flush();
    }

    @ParameterizedTest
    @ValueSource(strings = { "fixed-window", "sliding-window-log", "sliding-window-counter", "token-bucket",
            "leaky-bucket", "gcra" })
    void admitsExactlyTheLimitThenAnswers429UntilRetryAfterHasPassed(String algorithm) throws InterruptedException {
        String path = "/algorithms/" + algorithm;
        long retryAfter;
        for (int attempt = 1;; attempt++) {
            freshClient();
            // the window algorithms count per window of the Redis clock: keep the burst inside one window
            RedisState.awaitWindowStart(WINDOW_SECONDS * 1000L, 1500);
            long start = System.nanoTime();
            try {
                retryAfter = burst(algorithm, path);
                break;
            } catch (AssertionError e) {
                long millis = (System.nanoTime() - start) / 1_000_000;
                if (millis < BURST_MILLIS || attempt == ATTEMPTS) {
                    throw e;
                }
                System.err.printf("%s: the burst took %d ms (more than %d ms), trying again: %s%n", algorithm, millis,
                        BURST_MILLIS, e.getMessage());
            }
        }

        Thread.sleep(retryAfter * 1000);
        Response after = client.given().get(path);
        assertEquals(200, after.statusCode(), algorithm + ": admitted again after waiting Retry-After (" + retryAfter + "s)");
        assertTrue(state(after, algorithm)[0] >= 0);
    }

    /** Three admitted requests and a 429, with every header checked; returns the 429's Retry-After. */
    private long burst(String algorithm, String path) {
        // more quota comes back within one window, except for the counter: a request weighs on its
        // estimate until the end of the following window
        long maxT = algorithm.equals("sliding-window-counter") ? 2 * WINDOW_SECONDS : WINDOW_SECONDS;

        for (int i = 1; i <= LIMIT; i++) {
            Response ok = client.given().get(path);
            assertEquals(200, ok.statusCode(), algorithm + " request " + i + " must be admitted");
            assertEquals("ok", ok.asString());
            assertNull(ok.header("Retry-After"), "Retry-After belongs to 429 only");
            assertPolicy(ok, algorithm, LIMIT, WINDOW_SECONDS);
            long[] rt = state(ok, algorithm);
            assertEquals(LIMIT - i, rt[0], algorithm + ": remaining after request " + i);
            assertTrue(rt[1] >= 1 && rt[1] <= maxT,
                    algorithm + ": t (seconds until more quota) after request " + i + " was " + rt[1]);
            assertEquals(LIMIT, longHeader(ok, "X-RateLimit-Limit"));
            assertEquals(rt[0], longHeader(ok, "X-RateLimit-Remaining"));
            assertEquals(rt[1], longHeader(ok, "X-RateLimit-Reset"));
            if (i == 1) {
                assertEquals(List.of("rl:{" + client.identity() + "}:" + algorithm), RedisState.keys("rl:*:" + algorithm),
                        "one key, for this client's address");
            }
        }

        Response denied = client.given().get(path);
        assertEquals(429, denied.statusCode(), algorithm + ": request " + (LIMIT + 1) + " must be denied");
        long retryAfter = retryAfter(denied);
        assertPolicy(denied, algorithm, LIMIT, WINDOW_SECONDS);
        long[] rt = state(denied, algorithm);
        assertEquals(0, rt[0], "nothing left on the 429");
        assertTrue(rt[1] >= 1 && rt[1] <= maxT, algorithm + ": t on the 429 was " + rt[1]);
        // one denying policy, cost 1: Retry-After lies between its t and t + 1
        assertTrue(retryAfter >= rt[1] && retryAfter <= rt[1] + 1,
                algorithm + ": Retry-After " + retryAfter + " must lie in [t, t+1] = [" + rt[1] + ", " + (rt[1] + 1) + "]");
        assertEquals(LIMIT, longHeader(denied, "X-RateLimit-Limit"));
        assertEquals(0, longHeader(denied, "X-RateLimit-Remaining"));
        long legacyReset = longHeader(denied, "X-RateLimit-Reset");
        assertTrue(legacyReset >= rt[1] && legacyReset <= retryAfter,
                "X-RateLimit-Reset " + legacyReset + " must lie between t " + rt[1] + " and Retry-After " + retryAfter);

        assertTrue(denied.contentType().startsWith("application/problem+json"), "content type: " + denied.contentType());
        JsonPath problem = denied.jsonPath();
        assertEquals(429, problem.getInt("status"));
        assertEquals(algorithm, problem.getString("policy"));
        assertEquals(retryAfter, problem.getLong("retryAfter"));
        assertEquals("Too Many Requests", problem.getString("title"));
        // the problem type of draft-ietf-httpapi-ratelimit-headers, naming the policy over its quota
        assertEquals("https://iana.org/assignments/http-problem-types#quota-exceeded", problem.getString("type"));
        assertEquals(List.of(algorithm), problem.getList("violated-policies"));
        return retryAfter;
    }
}
