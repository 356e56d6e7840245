package dev.ratelimit.deployment.devservices;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.logging.LogRecord;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Test mode with no {@code quarkus.redis.hosts} and Redis Dev Services left on, on a machine without a container
 * runtime (as the build machine is): Dev Services starts nothing, and rather than failing every decision against a
 * Redis that is not there, limits are decided in process and the application says so once, naming what to set.
 * With a container runtime, Dev Services would set the hosts and Redis would decide (see {@code RedisBackendProviderTest}).
 */
class TestModeWithoutRedisTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1h")
            .setLogRecordPredicate(r -> r.getLoggerName().startsWith("dev.ratelimit"))
            .assertLogRecords(TestModeWithoutRedisTest::saidOnce);

    @Inject
    DefaultRateLimiter limiter;

    @Test
    void limitsAreDecidedInProcess() {
        assertEquals("local", limiter.backend().name());
        long first = System.nanoTime();
        given().get("/limited").then().statusCode(200).header("X-RateLimit-Remaining", "1");
        given().get("/limited").then().statusCode(200).header("X-RateLimit-Remaining", "0");
        long retryAfter = Long.parseLong(given().get("/limited").then().statusCode(429).extract().header("Retry-After"));
        // half the hour's refill interval (2 per hour), less the whole seconds the requests took on a busy machine
        long took = (System.nanoTime() - first) / 1_000_000_000L;
        assertTrue(retryAfter <= 1800 && retryAfter >= 1799 - took, "Retry-After " + retryAfter + " after " + took + " s");
    }

    private static void saidOnce(List<LogRecord> records) {
        List<String> said = records.stream().map(LogRecord::getMessage).filter(m -> m.startsWith("No Redis configured"))
                .toList();
        assertEquals(1, said.size(), () -> "said once: " + said);
        assertTrue(said.get(0).contains("decided in process for this test run"), said.get(0));
        assertTrue(said.get(0).contains("Set quarkus.redis.hosts, or start a container runtime"), said.get(0));
    }

    @Path("/limited")
    public static class Limited {
        @GET
        @RateLimit("api")
        public String get() {
            return "ok";
        }
    }
}
