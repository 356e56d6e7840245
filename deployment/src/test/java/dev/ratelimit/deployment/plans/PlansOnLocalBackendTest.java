package dev.ratelimit.deployment.plans;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.specification.RequestSpecification;

/**
 * Plans on the in-process backend ({@code backend=local}) behave as in Redis: a plan's burst is what an idle key
 * admits at once, a plan that sets only its limit keeps the policy's burst, a client moving between plans keeps what
 * it used, and the programmatic API names plans.
 */
class PlansOnLocalBackendTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class, HeaderPlan.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey(P + "bucket.limit", "10")
            .overrideConfigKey(P + "bucket.window", "1h")
            .overrideConfigKey(P + "bucket.burst", "2")
            .overrideConfigKey(P + "bucket.key", "header:X-Client")
            .overrideConfigKey(P + "bucket.plans.gold.burst", "4")
            .overrideConfigKey(P + "bucket.plans.silver.limit", "20")
            .overrideConfigKey(P + "log.algorithm", "sliding-window-log")
            .overrideConfigKey(P + "log.limit", "2")
            .overrideConfigKey(P + "log.window", "1h")
            .overrideConfigKey(P + "log.key", "header:X-Client")
            .overrideConfigKey(P + "log.plans.gold.limit", "4");

    @Path("/local-plans")
    public static class Limited {
        @GET
        @Path("bucket")
        @RateLimit("bucket")
        public String bucket() {
            return "ok";
        }

        @GET
        @Path("log")
        @RateLimit("log")
        public String log() {
            return "ok";
        }
    }

    @Inject
    RateLimiter limiter;

    private static RequestSpecification client(String client, String plan) {
        RequestSpecification r = given().header("X-Client", client);
        return plan == null ? r : r.header(HeaderPlan.HEADER, plan);
    }

    private static void admitsThenDenies(String path, String client, String plan, int limit, int admitted) {
        for (int i = 0; i < admitted; i++) {
            client(client, plan).get(path).then().statusCode(200).header("X-RateLimit-Limit", String.valueOf(limit));
        }
        client(client, plan).get(path).then().statusCode(429).header("X-RateLimit-Limit", String.valueOf(limit));
    }

    @Test
    void basePlanIsThePolicy() {
        admitsThenDenies("/local-plans/bucket", "base", null, 10, 2);
    }

    @Test
    void aPlansBurstIsWhatAnIdleKeyAdmits() {
        admitsThenDenies("/local-plans/bucket", "gold", "gold", 10, 4);
    }

    @Test
    void aPlanWithoutBurstKeepsThePolicysBurst() {
        admitsThenDenies("/local-plans/bucket", "silver", "silver", 20, 2);
    }

    @Test
    void movingBetweenPlansKeepsWhatWasUsed() {
        admitsThenDenies("/local-plans/log", "mover", null, 2, 2);
        for (int left = 1; left >= 0; left--) {
            client("mover", "gold").get("/local-plans/log").then().statusCode(200)
                    .header("X-RateLimit-Limit", "4").header("X-RateLimit-Remaining", String.valueOf(left));
        }
        client("mover", "gold").get("/local-plans/log").then().statusCode(429);
    }

    @Test
    void programmaticChecksNameThePlan() {
        for (int i = 0; i < 4; i++) {
            RateLimitDecision d = limiter.check(RateLimitCheck.of("log", "prog").onPlan("gold")).await().indefinitely();
            assertTrue(d.allowed(), d.toString());
            assertEquals(4, d.limit());
            assertEquals(Source.LOCAL, d.source());
        }
        assertFalse(limiter.checkBlocking(RateLimitCheck.of("log", "prog").onPlan("gold")).allowed());
        assertEquals(2, limiter.checkBlocking("log", "prog-base").limit());
    }
}
