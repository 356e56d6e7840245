package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.resilience.CircuitBreaker;
import dev.ratelimit.test.redis.RedisFixture;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * An error reply from a Redis that is up (here a key holding a hash, which no algorithm writes) leaves the breaker
 * closed while the policy falls back to its failure mode call after call: that used to be logged at DEBUG only. It is
 * now counted in {@code ratelimit.backend.errors} by kind, and logged at WARN once per kind and minute with a count.
 */
class BackendErrorReplyTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .setForcedDependencies(List.of(Dependency.of("io.quarkus",
                    "quarkus-micrometer-registry-prometheus-deployment", Version.getVersion())))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "errtest")
            .overrideConfigKey("quarkus.ratelimit.deny-cache.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "3")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            .setLogRecordPredicate(r -> r.getLoggerName().startsWith("dev.ratelimit.runtime"))
            .assertLogRecords(BackendErrorReplyTest::oneWarningForThreeErrors);

    @Inject
    DefaultRateLimiter limiter;

    @Test
    void errorRepliesAreCountedAndLoggedOncePerKind() {
        try (RespClient redis = RedisFixture.shared().client()) {
            redis.call("DEL", RedisKeys.key("errtest", "api", "hashed"));
            redis.call("HSET", RedisKeys.key("errtest", "api", "hashed"), "field", "value");
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(Source.LOCAL, limiter.checkBlocking("api", "hashed").source(), "the failure mode decides");
        }
        assertEquals(Source.REDIS, limiter.checkBlocking("api", "healthy").source(), "other keys are decided in Redis");
        assertEquals(CircuitBreaker.State.CLOSED, limiter.circuitBreaker().state(), "Redis is up");
        String metrics = RestAssured.get("/q/metrics").then().statusCode(200).extract().asString();
        assertTrue(metrics.contains("ratelimit_backend_errors_total{backend=\"redis\",kind=\"WRONGTYPE\"} 3.0"), metrics);
    }

    private static void oneWarningForThreeErrors(List<LogRecord> records) {
        List<LogRecord> warnings = records.stream().filter(r -> r.getLevel().intValue() == Level.WARNING.intValue())
                .filter(r -> r.getLoggerName().endsWith("BackendErrors")).toList();
        assertEquals(1, warnings.size(), () -> warnings.toString());
        String message = String.format(warnings.get(0).getMessage(), warnings.get(0).getParameters());
        assertTrue(message.contains("WRONGTYPE") && message.contains("api"), message);
    }
}
