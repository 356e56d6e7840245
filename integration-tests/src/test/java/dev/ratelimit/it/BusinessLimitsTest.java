package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;

/**
 * The demo's business limits over HTTP: a sign-in counting failures only, with a lock-out; completions metered in the
 * tokens they used (reserved, then settled).
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class BusinessLimitsTest {

    private static int signIn(String user, String password) {
        return RestAssured.given().header("X-User", user).header("X-Password", password).post("/api/sign-in")
                .statusCode();
    }

    @Test
    void signInCountsFailuresAndLocksOut() {
        String user = "u-" + UUID.randomUUID();
        for (int i = 0; i < 8; i++) {
            assertEquals(200, signIn(user, "demo"), "successes cost nothing");
        }
        for (int i = 0; i < 5; i++) {
            assertEquals(401, signIn(user, "guess"));
        }
        Response locked = RestAssured.given().header("X-User", user).header("X-Password", "guess")
                .post("/api/sign-in");
        assertEquals(429, locked.statusCode());
        long retry = Long.parseLong(locked.header("Retry-After"));
        assertTrue(retry > 800 && retry <= 900, () -> "locked out for 15 minutes: " + retry);
        assertEquals(429, signIn(user, "demo"), "locked out, even with the right password");
    }

    private static Response complete(String tenant, long tokens) {
        return RestAssured.given().header("X-Tenant", tenant).queryParam("tokens", tokens).post("/api/complete");
    }

    @Test
    void completionsAreChargedTheTokensTheyUsed() throws InterruptedException {
        String tenant = "t-" + UUID.randomUUID();
        // 5,000 at once: 40 completions of 100 tokens each fit, though each reserves 1,000
        for (int i = 0; i < 40; i++) {
            Response r = complete(tenant, 100);
            assertEquals(200, r.statusCode(), () -> "completion of 100 tokens: " + r.header("RateLimit"));
            Thread.sleep(5); // the settlement follows the response
        }
        // one completion using 6,000 tokens puts the tenant into debt: the next is denied
        assertEquals(200, complete("big-" + tenant, 6000).statusCode());
        Thread.sleep(200);
        assertEquals(429, complete("big-" + tenant, 10).statusCode());
    }
}
