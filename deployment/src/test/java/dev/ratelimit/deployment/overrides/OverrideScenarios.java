package dev.ratelimit.deployment.overrides;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitKeys;
import dev.ratelimit.RateLimitOverride;
import dev.ratelimit.RateLimiter;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;

/**
 * {@code overrides=true}: a key's own limit, window, burst or plan, set, read and cleared through {@link RateLimiter}
 * at run time, applies from the next decision on, over HTTP and in code; the headers and decisions report the values
 * that applied; other keys keep the policy's; it expires; what is asked wrongly is refused naming what to fix; on the
 * backend of the subclass.
 */
abstract class OverrideScenarios {

    static final String P = "quarkus.ratelimit.policies.";

    /**
     * {@code api}: 3 an hour per customer (token bucket), plans {@code gold} (20) and {@code low} (1); {@code pages}:
     * the same on a fixed window; {@code fixed}: no overrides.
     */
    static QuarkusUnitTest application() {
        return new QuarkusUnitTest()
                .withApplicationRoot(jar -> jar.addClasses(OverrideScenarios.class, Api.class))
                .overrideConfigKey("quarkus.http.test-port", "0")
                .overrideConfigKey("quarkus.ratelimit.key-prefix", "overrides-" + System.nanoTime())
                .overrideConfigKey(P + "api.algorithm", "token-bucket")
                .overrideConfigKey(P + "api.limit", "3")
                .overrideConfigKey(P + "api.window", "1h")
                .overrideConfigKey(P + "api.key", "header:X-Customer")
                .overrideConfigKey(P + "api.overrides", "true")
                .overrideConfigKey(P + "api.plans.gold.limit", "20")
                .overrideConfigKey(P + "api.plans.low.limit", "1")
                .overrideConfigKey(P + "pages.algorithm", "fixed-window")
                .overrideConfigKey(P + "pages.limit", "3")
                .overrideConfigKey(P + "pages.window", "1h")
                .overrideConfigKey(P + "pages.key", "header:X-Customer")
                .overrideConfigKey(P + "pages.overrides", "true")
                .overrideConfigKey(P + "fixed.limit", "3")
                .overrideConfigKey(P + "fixed.window", "1h");
    }

    @Path("/overrides")
    public static class Api {
        @GET
        @Path("api")
        @RateLimit("api")
        public String api() {
            return "ok";
        }

        @GET
        @Path("pages")
        @RateLimit("pages")
        public String pages() {
            return "ok";
        }
    }

    @Inject
    RateLimiter limiter;

    /** The source the backend under test decides with. */
    protected abstract RateLimitDecision.Source expectedSource();

    /** A request of {@code customer} on {@code api} (a token bucket). */
    static Response get(String customer) {
        return RestAssured.given().header("X-Customer", customer).get("/overrides/api");
    }

    /** A request of {@code customer} on {@code pages} (a fixed window). */
    static Response page(String customer) {
        return RestAssured.given().header("X-Customer", customer).get("/overrides/pages");
    }

    /** A customer's header value. */
    static String customer() {
        return "c-" + UUID.randomUUID();
    }

    /** The identity the policy counts the customer's requests under (its key is header:X-Customer). */
    static String id(String customer) {
        return RateLimitKeys.header(customer);
    }

    @Test
    void aRaisedLimitAppliesFromTheNextRequestAndTheHeadersSayIt() {
        String c = customer();
        String other = customer();
        for (int i = 0; i < 3; i++) {
            page(c).then().statusCode(200).header("X-RateLimit-Limit", "3");
        }
        page(c).then().statusCode(429);
        limiter.setOverrideBlocking("pages", id(c), RateLimitOverride.ofLimit(10));
        // what the key used stays counted: 7 more of 10
        for (int i = 0; i < 7; i++) {
            page(c).then().statusCode(200).header("X-RateLimit-Limit", "10")
                    .header("RateLimit-Policy", "\"pages\";q=10;w=3600");
        }
        page(c).then().statusCode(429).header("X-RateLimit-Limit", "10");
        // another customer keeps the policy's values
        for (int i = 0; i < 3; i++) {
            page(other).then().statusCode(200).header("X-RateLimit-Limit", "3");
        }
        page(other).then().statusCode(429);
    }

    @Test
    void aRaisedBucketRefillsAtItsNewRateFromNowAndAResetFillsIt() throws InterruptedException {
        String c = customer();
        for (int i = 0; i < 3; i++) {
            get(c).then().statusCode(200);
        }
        get(c).then().statusCode(429);
        // 10 a second: the bucket is still full again in an hour, but refills 3,600 times faster from now on
        limiter.setOverrideBlocking("api", id(c), RateLimitOverride.ofLimit(36_000));
        Thread.sleep(350);
        get(c).then().statusCode(200).header("X-RateLimit-Limit", "36000");
        limiter.resetBlocking("api", id(c));
        RateLimitDecision full = limiter.checkBlocking("api", id(c), 1000);
        assertTrue(full.allowed(), "a reset key has the whole overriding burst");
        assertEquals(35_000, full.policies().get(0).remaining());
    }

    @Test
    void anOverrideIsReadBackAndClearedAndThePolicysValuesApplyAgain() {
        String c = customer();
        assertEquals(Optional.empty(), limiter.overrideBlocking("api", id(c)));
        Instant until = Instant.now().plus(Duration.ofDays(30));
        limiter.setOverrideBlocking("api", id(c), RateLimitOverride.ofLimit(5).withBurst(5).until(until));
        RateLimitOverride read = limiter.overrideBlocking("api", id(c)).orElseThrow();
        assertEquals(5L, read.limit());
        assertEquals(5L, read.burst());
        assertEquals(null, read.window());
        assertEquals(until.toEpochMilli(), read.expiresAt().toEpochMilli());
        for (int i = 0; i < 5; i++) {
            get(c).then().statusCode(200).header("X-RateLimit-Limit", "5");
        }
        get(c).then().statusCode(429);
        limiter.clearOverrideBlocking("api", id(c));
        // the bucket is full again in an hour whatever its values: on 3 an hour, nothing now
        assertEquals(Optional.empty(), limiter.overrideBlocking("api", id(c)));
        Response after = get(c);
        after.then().statusCode(429).header("X-RateLimit-Limit", "3");
    }

    @Test
    void aLoweredLimitHoldsAKeyBackAtOnce() {
        String c = customer();
        get(c).then().statusCode(200);
        limiter.setOverrideBlocking("api", id(c), RateLimitOverride.ofLimit(1));
        get(c).then().statusCode(429).header("X-RateLimit-Limit", "1");
    }

    @Test
    void anOverrideExpiresAtItsInstant() throws InterruptedException {
        String c = customer();
        limiter.setOverrideBlocking("pages", id(c), RateLimitOverride.ofLimit(1).expiringAfter(Duration.ofMillis(800)));
        page(c).then().statusCode(200).header("X-RateLimit-Limit", "1");
        page(c).then().statusCode(429);
        Thread.sleep(1000);
        // the policy's 3 again: 2 more
        page(c).then().statusCode(200).header("X-RateLimit-Limit", "3");
        page(c).then().statusCode(200);
        page(c).then().statusCode(429);
        assertEquals(Optional.empty(), limiter.overrideBlocking("pages", id(c)));
    }

    @Test
    void aPlanOverrideGivesTheKeyThePlansValuesWhateverPlanItsRequestsAreOn() {
        String c = customer();
        limiter.setOverrideBlocking("api", id(c), RateLimitOverride.ofPlan("gold"));
        assertEquals("gold", limiter.overrideBlocking("api", id(c)).orElseThrow().plan());
        for (int i = 0; i < 20; i++) {
            get(c).then().statusCode(200).header("X-RateLimit-Limit", "20");
        }
        get(c).then().statusCode(429);
        // a check on plan low is still decided on the key's override
        RateLimitDecision d = limiter.checkBlocking(RateLimitCheck.of("api", id(c)).onPlan("low"));
        assertFalse(d.allowed());
        assertEquals(20, d.policies().get(0).limit());
    }

    @Test
    void aWindowOverrideOfABucketIsReportedInTheDecision() {
        String c = customer();
        limiter.setOverrideBlocking("api", id(c), RateLimitOverride.ofLimit(2).withWindow(Duration.ofMinutes(1)));
        RateLimitDecision d = limiter.checkBlocking("api", id(c));
        PolicyDecision p = d.policies().get(0);
        assertTrue(d.allowed());
        assertEquals(expectedSource(), d.source());
        assertEquals(2, p.limit());
        assertEquals(Duration.ofMinutes(1), p.window());
        assertEquals(1, p.remaining());
        get(c).then().statusCode(200).header("RateLimit-Policy", "\"api\";q=2;w=60");
        Response denied = get(c);
        denied.then().statusCode(429);
        // one unit comes back every 30 s
        int retry = Integer.parseInt(denied.header("Retry-After"));
        assertTrue(retry > 0 && retry <= 30, "Retry-After " + retry);
    }

    @Test
    void aCostAboveThePolicysCapacityIsDecidedOnTheKeysOverride() {
        String c = customer();
        limiter.setOverrideBlocking("api", id(c), RateLimitOverride.ofLimit(10));
        assertTrue(limiter.checkBlocking("api", id(c), 8).allowed());
        RateLimitDecision never = limiter.checkBlocking("api", customer(), 8);
        assertFalse(never.allowed(), "8 units can never be admitted by 3: denied, not refused");
    }

    @Test
    void whatCannotBeOverriddenIsRefusedNamingWhatToFix() {
        IllegalStateException notTaking = assertThrows(IllegalStateException.class,
                () -> limiter.setOverrideBlocking("fixed", "k", RateLimitOverride.ofLimit(5)));
        assertTrue(notTaking.getMessage().contains("quarkus.ratelimit.policies.fixed.overrides=true"),
                notTaking.getMessage());
        IllegalArgumentException window = assertThrows(IllegalArgumentException.class,
                () -> limiter.setOverrideBlocking("pages", "k", RateLimitOverride.ofWindow(Duration.ofMinutes(1))));
        assertTrue(window.getMessage().contains("fixed-window") && window.getMessage().contains("limit only"),
                window.getMessage());
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> limiter.setOverrideBlocking("api", "k", RateLimitOverride.ofLimit(0)));
        assertTrue(zero.getMessage().contains("limit 0"), zero.getMessage());
        IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
                () -> limiter.setOverrideBlocking("api", "k", RateLimitOverride.ofLimit(20_000_000)));
        assertTrue(huge.getMessage().contains("10000000"), huge.getMessage());
        IllegalArgumentException burst = assertThrows(IllegalArgumentException.class,
                () -> limiter.setOverrideBlocking("pages", "k", RateLimitOverride.ofBurst(5)));
        assertTrue(burst.getMessage().contains("no burst"), burst.getMessage());
        IllegalArgumentException plan = assertThrows(IllegalArgumentException.class,
                () -> limiter.setOverrideBlocking("api", "k", RateLimitOverride.ofPlan("platinum")));
        assertTrue(plan.getMessage().contains("gold, low"), plan.getMessage());
        IllegalArgumentException past = assertThrows(IllegalArgumentException.class,
                () -> limiter.setOverrideBlocking("api", "k",
                        RateLimitOverride.ofLimit(5).until(Instant.now().minusSeconds(1))));
        assertTrue(past.getMessage().contains("has passed"), past.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> RateLimitOverride.ofPlan("gold").withLimit(5));
        // nothing was stored
        assertEquals(Optional.empty(), limiter.overrideBlocking("api", "k"));
    }
}
