package dev.ratelimit.deployment.settle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.UUID;
import java.util.function.LongSupplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitSettlement;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * {@code @RateLimit(settle = true)}: the estimate is reserved before the method runs and the method settles its
 * actual cost through {@link RateLimitSettlement}, on a JAX-RS resource method (reserved by the filter) and on a bean
 * method (by the interceptor); a refund, a debit into debt, a method that never settles, on Redis. Refused where the
 * call has no reservation ({@link SettleOnReactiveBeanMethodTest}: at build time where it ends after returning).
 */
class SettleFromAnnotatedMethodsTest {

    static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Llm.class, Exporter.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "settle-" + System.nanoTime())
            .overrideConfigKey(P + "tokens.algorithm", "token-bucket")
            .overrideConfigKey(P + "tokens.limit", "20")
            .overrideConfigKey(P + "tokens.window", "1h")
            .overrideConfigKey(P + "tokens.key", "header:X-Tenant")
            .overrideConfigKey(P + "rows.algorithm", "fixed-window")
            .overrideConfigKey(P + "rows.limit", "20")
            .overrideConfigKey(P + "rows.window", "1h")
            .overrideConfigKey(P + "rows.key", "global");

    @Path("/llm")
    public static class Llm {
        @Inject
        RateLimitSettlement settlement;

        @GET
        @RateLimit(value = "tokens", cost = 10, settle = true)
        public String complete(@QueryParam("used") Long used) {
            if (used != null) {
                settlement.settle("tokens", used);
            }
            return "done";
        }
    }

    @ApplicationScoped
    public static class Exporter {
        @Inject
        RateLimitSettlement settlement;

        @RateLimit(value = "rows", cost = 8, settle = true)
        public int export(int rows) {
            settlement.settle("rows", rows);
            return rows;
        }

        @RateLimit(value = "rows")
        public int exportUnsettled(int rows) {
            settlement.settle("rows", rows);
            return rows;
        }
    }

    @Inject
    RateLimiter limiter;

    @Inject
    Exporter exporter;

    /** Waits for {@code value} to become {@code expected} (a settlement is sent after the method returned). */
    private static void await(long expected, LongSupplier value) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        long v = value.getAsLong();
        while (v != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
            v = value.getAsLong();
        }
        assertEquals(expected, v);
    }

    @Test
    void aResourceMethodSettlesItsActualCost() throws InterruptedException {
        String tenant = "t-" + UUID.randomUUID();
        LongSupplier remaining = () -> limiter.stateBlocking("tokens", "hdr=" + tenant).remaining();
        assertEquals(200, RestAssured.given().header("X-Tenant", tenant).queryParam("used", 3).get("/llm").statusCode());
        await(17, remaining); // 10 reserved, 3 used
        assertEquals(200, RestAssured.given().header("X-Tenant", tenant).get("/llm").statusCode());
        await(7, remaining); // never settled: the estimate stays
        assertEquals(429, RestAssured.given().header("X-Tenant", tenant).queryParam("used", 0).get("/llm").statusCode(),
                "7 left: an estimate of 10 does not fit");
    }

    @Test
    void aDebitPutsTheTenantIntoDebt() throws InterruptedException {
        String tenant = "d-" + UUID.randomUUID();
        assertEquals(200, RestAssured.given().header("X-Tenant", tenant).queryParam("used", 35).get("/llm")
                .statusCode());
        await(0, () -> limiter.stateBlocking("tokens", "hdr=" + tenant).remaining());
        assertTrue(limiter.stateBlocking("tokens", "hdr=" + tenant).retryAfter().compareTo(Duration.ofMinutes(40)) > 0,
                "35 used of 20: 15 of debt to wait out before 10 more fit");
        assertEquals(429, RestAssured.given().header("X-Tenant", tenant).get("/llm").statusCode());
    }

    @Test
    void aBeanMethodSettlesOnItsThread() throws InterruptedException {
        limiter.resetBlocking("rows", "global");
        assertEquals(2, exporter.export(2));
        await(18, () -> limiter.stateBlocking("rows", "global").remaining());
        assertThrows(IllegalStateException.class, () -> exporter.exportUnsettled(1), "nothing reserved to settle");
    }
}
