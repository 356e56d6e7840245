package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;

/**
 * What the demo gives operators and outbound callers, over real HTTP on a real Redis (and in the native executable,
 * see {@link OperatorsIT}): the admin endpoint on the management interface, guarded by its roles; the partner's quote
 * feed ({@code max-wait}), whose calls beyond the burst go on at their turns, none ahead of the policy; the catalog's
 * leased slices.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class OperatorsTest {

    /** The admin endpoint's policies, on the management interface (the port the application's config gives tests). */
    private final String policies = "http://localhost:" + ConfigProvider.getConfig()
            .getOptionalValue("quarkus.management.test-port", Integer.class).orElse(9001) + "/q/ratelimit/policies";

    @Test
    void theAdminEndpointListsThePoliciesToItsRolesOnly() {
        Response ops = RestAssured.given().auth().preemptive().basic("ops", "ops-secret").get(policies);
        assertEquals(200, ops.statusCode(), ops::asString);
        String body = ops.asString();
        assertTrue(body.contains("\"quote-feed\"") && body.contains("\"catalog\""), body);
        assertEquals(200, RestAssured.given().auth().preemptive().basic("oncall", "oncall-secret").get(policies)
                .statusCode(), "a viewer reads");
        assertEquals(401, RestAssured.given().get(policies).statusCode(), "nobody else");
        assertEquals(403, RestAssured.given().auth().preemptive().basic("oncall", "oncall-secret")
                .delete(policies + "/quote-feed/keys/anyone").statusCode(), "a viewer does not reset");
        assertEquals(403, RestAssured.given().auth().preemptive().basic("alice", "alice-secret").get(policies)
                .statusCode(), "a user without the role");
    }

    @Test
    void quoteFeedCallsBeyondTheBurstWaitTheirTurnsNoneAhead() throws Exception {
        Thread.sleep(1_100); // the bucket (10 a second, for everyone) full again after other tests
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            long start = System.nanoTime();
            List<CompletableFuture<Long>> calls = new ArrayList<>();
            for (int i = 0; i < 15; i++) {
                int n = i;
                calls.add(CompletableFuture.supplyAsync(() -> {
                    assertEquals(200, RestAssured.get("/api/quotes-feed/Q" + n).statusCode(), "waited its turn");
                    return (System.nanoTime() - start) / 1_000_000;
                }, pool));
            }
            List<Long> times = new ArrayList<>();
            for (CompletableFuture<Long> c : calls) {
                times.add(c.get());
            }
            java.util.Collections.sort(times);
            for (int i = 10; i < 15; i++) {
                long at = times.get(i);
                long earliest = (i - 9) * 100L - 20; // 10 at once, then one every 100 ms
                int n = i + 1;
                assertTrue(at >= earliest, () -> "admission " + n + " at " + at + " ms, ahead of the policy: " + times);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theCatalogIsServedFromLeasedSlicesWithTruthfulHeaders() {
        for (int i = 1; i <= 40; i++) {
            Response r = RestAssured.get("/api/catalog");
            assertEquals(200, r.statusCode());
            long remaining = RateLimitHeaders.remaining(r, "catalog");
            long most = 600 - i;
            assertTrue(remaining >= 0 && remaining <= most, () -> "at most 600 less the calls made (" + most + "): "
                    + remaining);
        }
    }
}
