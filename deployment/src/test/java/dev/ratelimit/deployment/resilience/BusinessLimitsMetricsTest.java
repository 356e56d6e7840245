package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitOverride;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Reservation;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * With Micrometer, the business limits show in the metrics: settlements per policy and outcome (refunded, debited,
 * failed when the backend could not settle; one at the estimate is not sent) with the units they moved, and the
 * overrides set and cleared through this instance, the slices leased ({@code lease}) and their units leased and
 * returned.
 */
class BusinessLimitsMetricsTest {

    static final RedisServerProcess REDIS = OwnRedis.of(BusinessLimitsMetricsTest.class);

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class))
            .setForcedDependencies(List.of(Dependency.of("io.quarkus",
                    "quarkus-micrometer-registry-prometheus-deployment", Version.getVersion())))
            .overrideConfigKey("quarkus.redis.hosts", REDIS.uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.redis.timeout", "200ms")
            .overrideConfigKey("quarkus.ratelimit.policies.tokens.limit", "1000")
            .overrideConfigKey("quarkus.ratelimit.policies.tokens.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.tokens.algorithm", "token-bucket")
            .overrideConfigKey("quarkus.ratelimit.policies.tokens.overrides", "true")
            .overrideConfigKey("quarkus.ratelimit.policies.hot.limit", "100000")
            .overrideConfigKey("quarkus.ratelimit.policies.hot.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.hot.lease", "auto");

    @Inject
    RateLimiter limiter;

    @AfterAll
    static void stopRedis() {
        REDIS.stop();
    }

    private Reservation reserve(int cost) {
        Reservation r = limiter.reserveBlocking(RateLimitCheck.of("tokens", "tenant").cost(cost));
        assertTrue(r.allowed(), r.decision()::toString);
        return r;
    }

    @Test
    void settlementsOverridesAndLeasesAreCounted() throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            assertTrue(limiter.checkBlocking("hot", "tenant").allowed());
        }
        Thread.sleep(400); // the last slice ends (100 ms) and is swept: what it did not use goes back
        reserve(100).settle(70).await().atMost(Duration.ofSeconds(5)); // 30 back
        reserve(100).settle(120).await().atMost(Duration.ofSeconds(5)); // 20 more
        reserve(100).settle(100).await().atMost(Duration.ofSeconds(5)); // at the estimate: nothing sent, nothing counted
        limiter.setOverrideBlocking("tokens", "tenant", RateLimitOverride.ofLimit(5000));
        limiter.setOverrideBlocking("tokens", "other", RateLimitOverride.ofLimit(5000));
        limiter.clearOverrideBlocking("tokens", "other");
        Reservation lost = reserve(10);
        REDIS.kill();
        assertThrows(RuntimeException.class, () -> lost.settle(1).await().atMost(Duration.ofSeconds(5)));

        String metrics = RestAssured.get("/q/metrics").then().statusCode(200).extract().asString();
        assertEquals(1, value(metrics, "ratelimit_settlements_total", "outcome=\"refunded\""), metrics);
        assertEquals(1, value(metrics, "ratelimit_settlements_total", "outcome=\"debited\""));
        assertTrue(!metrics.contains("outcome=\"unchanged\""), "a settlement at the estimate is not sent");
        assertEquals(1, value(metrics, "ratelimit_settlements_total", "outcome=\"failed\""));
        assertEquals(30, value(metrics, "ratelimit_settled_units_total", "outcome=\"refunded\""));
        assertEquals(20, value(metrics, "ratelimit_settled_units_total", "outcome=\"debited\""));
        assertEquals(2, value(metrics, "ratelimit_overrides_total", "action=\"set\""));
        assertEquals(1, value(metrics, "ratelimit_overrides_total", "action=\"cleared\""));
        double slices = value(metrics, "ratelimit_lease_slices_total", "policy=\"hot\"", "hot");
        double leased = value(metrics, "ratelimit_lease_units_total", "outcome=\"leased\"", "hot");
        double returned = value(metrics, "ratelimit_lease_units_total", "outcome=\"returned\"", "hot");
        assertTrue(slices >= 1, metrics);
        // every call but those decided alone came from a slice; the slices' unused units went back
        assertTrue(leased - returned <= 200 && leased - returned > 0, () -> leased + " leased, " + returned + " returned");
        assertTrue(returned > 0, "the last slice was not used up");
    }

    /** The value of the one sample of {@code name} (policy {@code tokens}) whose labels include {@code label}. */
    private static double value(String metrics, String name, String label) {
        return value(metrics, name, label, "tokens");
    }

    /** The value of the one sample of {@code name} of {@code policy} whose labels include {@code label}. */
    private static double value(String metrics, String name, String label, String policy) {
        Pattern sample = Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);
        Matcher m = sample.matcher(metrics);
        Double found = null;
        while (m.find()) {
            if (m.group(1).contains(label) && m.group(1).contains("policy=\"" + policy + "\"")) {
                assertTrue(found == null, "one sample of " + name + " with " + label);
                found = Double.parseDouble(m.group(2));
            }
        }
        assertTrue(found != null, () -> "no sample of " + name + " with " + label + " in\n" + metrics);
        return found;
    }
}
