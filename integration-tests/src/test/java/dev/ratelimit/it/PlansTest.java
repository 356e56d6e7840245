package dev.ratelimit.it;

import static dev.ratelimit.it.RateLimitHeaders.assertPolicy;
import static dev.ratelimit.it.RateLimitHeaders.remaining;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * Plans of one policy: {@code per-user} admits 3 per minute, 10 on its {@code premium} plan, and the application's
 * {@code AccountPlan} puts users with the role {@code premium} on it (carol). She sees her plan's limit in the headers,
 * any other caller the policy's. Each test uses a budget no other test touches: the in-process cache of recent denials
 * outlives a FLUSHALL.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class PlansTest {

    TestClient client;

    @BeforeEach
    void idle() {
        client = TestClient.fresh();
        RedisState.flush();
    }

    private Response account(String user) {
        return client.given().auth().preemptive().basic(user, user + "-secret").get("/account");
    }

    @Test
    void premiumUserGetsThePlansLimit() {
        for (int i = 1; i <= 10; i++) {
            Response r = account("carol");
            assertEquals(200, r.statusCode(), "carol request " + i);
            assertPolicy(r, "per-user", 10, 60);
            assertEquals(10 - i, remaining(r, "per-user"));
            assertEquals("10", r.header("X-RateLimit-Limit"));
        }
        Response denied = account("carol");
        assertEquals(429, denied.statusCode());
        assertPolicy(denied, "per-user", 10, 60);
        assertEquals(List.of("user=carol"), RedisState.tags("per-user"), "counted per user, as on the policy's own values");
    }

    @Test
    void otherCallersGetThePolicysLimit() {
        // an anonymous caller, counted by address, is on no plan
        for (int i = 1; i <= 3; i++) {
            Response r = client.given().get("/account/greeting");
            assertEquals(200, r.statusCode(), "request " + i);
            assertPolicy(r, "per-user", 3, 60);
            assertEquals("3", r.header("X-RateLimit-Limit"));
        }
        Response denied = client.given().get("/account/greeting");
        assertEquals(429, denied.statusCode());
        assertPolicy(denied, "per-user", 3, 60);
        assertEquals(List.of(client.identity()), RedisState.tags("per-user"));
    }
}
