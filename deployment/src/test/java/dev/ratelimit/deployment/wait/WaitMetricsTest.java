package dev.ratelimit.deployment.wait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * {@code ratelimit.waits} counts the calls that waited: those admitted at a turn or after a retry, and those denied
 * because their admission lay beyond {@code max-wait}; a call admitted at once did not wait and is not counted.
 */
class WaitMetricsTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .setForcedDependencies(List.of(Dependency.of("io.quarkus",
                    "quarkus-micrometer-registry-prometheus-deployment", Version.getVersion())))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "wait-metrics-" + System.nanoTime())
            .overrideConfigKey(P + "queue.limit", "5")
            .overrideConfigKey(P + "queue.window", "1s")
            .overrideConfigKey(P + "queue.key", "global")
            .overrideConfigKey(P + "queue.max-wait", "5s")
            .overrideConfigKey(P + "hourly.algorithm", "fixed-window")
            .overrideConfigKey(P + "hourly.limit", "1")
            .overrideConfigKey(P + "hourly.window", "1h")
            .overrideConfigKey(P + "hourly.max-wait", "100ms");

    @Inject
    RateLimiter limiter;

    @Test
    void callsThatWaitedAreTimedAndThoseAdmittedAtOnceAreNot() {
        List<CompletableFuture<RateLimitDecision>> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            calls.add(limiter.check("queue", "q").subscribeAsCompletionStage());
        }
        for (CompletableFuture<RateLimitDecision> c : calls) {
            assertTrue(c.join().allowed());
        }
        assertTrue(limiter.checkBlocking("hourly", "h").allowed());
        assertFalse(limiter.checkBlocking("hourly", "h").allowed(), "the hour's end lies beyond max-wait");

        String metrics = RestAssured.get("/q/metrics").then().statusCode(200).extract().asString();
        assertEquals(3, value(metrics, "ratelimit_waits_seconds_count", "queue", "admitted"),
                "the 3 calls beyond the burst of 5 took turns; the 5 admitted at once did not wait");
        assertTrue(value(metrics, "ratelimit_waits_seconds_sum", "queue", "admitted") >= 0.2 + 0.4 + 0.6 - 0.05,
                "turns 200, 400 and 600 ms away");
        assertEquals(1, value(metrics, "ratelimit_waits_seconds_count", "hourly", "timed-out"), metrics);
        assertFalse(metrics.contains("ratelimit_waits_seconds_count{outcome=\"admitted\",policy=\"hourly\""),
                "the first hourly call was admitted at once");
    }

    private static double value(String metrics, String name, String policy, String outcome) {
        Pattern sample = Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);
        Matcher m = sample.matcher(metrics);
        while (m.find()) {
            if (m.group(1).contains("policy=\"" + policy + "\"") && m.group(1).contains("outcome=\"" + outcome + "\"")) {
                return Double.parseDouble(m.group(2));
            }
        }
        throw new AssertionError("no sample of " + name + " for " + policy + "/" + outcome + " in\n" + metrics);
    }
}
