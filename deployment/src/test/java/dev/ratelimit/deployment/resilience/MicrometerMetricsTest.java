package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.resilience.CircuitBreaker;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * With Micrometer (the Prometheus registry) in the application, a scripted scenario covering every outcome shows up
 * in {@code /q/metrics} with the right counts per policy and outcome, along with the backend latency timer and the
 * circuit breaker gauge.
 * <p>
 * Micrometer is added to this test only ({@code setForcedDependencies}), not to the module: the other tests run
 * without it, as most applications do.
 */
class MicrometerMetricsTest {

    static final RedisServerProcess REDIS = OwnRedis.of(MicrometerMetricsTest.class);

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class))
            .setForcedDependencies(List.of(Dependency.of("io.quarkus",
                    "quarkus-micrometer-registry-prometheus-deployment", Version.getVersion())))
            .overrideConfigKey("quarkus.redis.hosts", REDIS.uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.circuit-breaker.failure-threshold", "2")
            .overrideConfigKey("quarkus.ratelimit.circuit-breaker.open-duration", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "3")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.dark.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.dark.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.dark.mode", "shadow")
            .overrideConfigKey("quarkus.ratelimit.policies.open.limit", "100")
            .overrideConfigKey("quarkus.ratelimit.policies.open.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.open.on-failure", "fail-open")
            .overrideConfigKey("quarkus.ratelimit.policies.closed.limit", "100")
            .overrideConfigKey("quarkus.ratelimit.policies.closed.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.closed.on-failure", "fail-closed");

    @Inject
    DefaultRateLimiter limiter;

    @AfterAll
    static void stopRedis() {
        REDIS.stop();
    }

    @Test
    void everyOutcomeIsCounted() {
        for (int i = 0; i < 3; i++) {
            expect(Source.REDIS, true, limiter.checkBlocking("api", "a"));
        }
        expect(Source.REDIS, false, limiter.checkBlocking("api", "a"));
        expect(Source.DENY_CACHE, false, limiter.checkBlocking("api", "a"));
        expect(Source.REDIS, true, limiter.checkBlocking("dark", "d"));
        expect(Source.REDIS, true, limiter.checkBlocking("dark", "d")); // over its limit, but shadow
        REDIS.kill();
        // the breaker does not open while a call succeeded within the last timeout (250 ms): let that pass
        sleep(300);
        expect(Source.FAILED_OPEN, true, limiter.checkBlocking("open", "o")); // failure 1
        expect(Source.FAILED_CLOSED, false, limiter.checkBlocking("closed", "c")); // failure 2: the breaker opens
        assertEquals(CircuitBreaker.State.OPEN, limiter.circuitBreaker().state());
        expect(Source.LOCAL, true, limiter.checkBlocking("api", "b")); // not even tried
        expect(Source.FAILED_OPEN, true, limiter.checkBlocking("open", "o"));

        String metrics = RestAssured.get("/q/metrics").then().statusCode(200).extract().asString();
        assertEquals(3, decisions(metrics, "api", "allowed"), metrics);
        assertEquals(1, decisions(metrics, "api", "denied"));
        assertEquals(1, decisions(metrics, "api", "deny-cache"));
        assertEquals(1, decisions(metrics, "api", "local-fallback"));
        assertEquals(0, decisions(metrics, "api", "failed-open"));
        assertEquals(1, decisions(metrics, "dark", "allowed"));
        assertEquals(1, decisions(metrics, "dark", "shadow-denied"));
        assertEquals(2, decisions(metrics, "open", "failed-open"));
        assertEquals(1, decisions(metrics, "closed", "failed-closed"));
        assertEquals(0, decisions(metrics, "closed", "allowed"), "every policy's counters exist from the start");
        // 6 calls answered by Redis, 2 failed; none for the cache hit or while the breaker was open
        assertEquals(8, value(metrics, "ratelimit_backend_latency_seconds_count", "backend=\"redis\""));
        assertEquals(1, value(metrics, "ratelimit_circuit_state", "backend=\"redis\""));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void expect(Source source, boolean allowed, RateLimitDecision d) {
        assertEquals(source, d.source(), d::toString);
        assertEquals(allowed, d.allowed(), d::toString);
    }

    private static double decisions(String metrics, String policy, String outcome) {
        return value(metrics, "ratelimit_decisions_total", "outcome=\"" + outcome + "\"", "policy=\"" + policy + "\"");
    }

    /** The value of the one sample of {@code name} whose labels include all of {@code labels}. */
    private static double value(String metrics, String name, String... labels) {
        Pattern sample = Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);
        Matcher m = sample.matcher(metrics);
        Double found = null;
        while (m.find()) {
            boolean all = true;
            for (String label : labels) {
                all &= m.group(1).contains(label);
            }
            if (all) {
                assertTrue(found == null, "one sample of " + name + " with " + List.of(labels));
                found = Double.parseDouble(m.group(2));
            }
        }
        assertTrue(found != null, () -> "no sample of " + name + " with " + List.of(labels) + " in\n" + metrics);
        return found;
    }
}
