package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.assertNames;
import static dev.ratelimit.deployment.validation.ValidationProblems.problems;
import static dev.ratelimit.deployment.validation.ValidationProblems.property;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Values beyond the range where every decision is exact fail the build, each naming its property: a limit above
 * 10,000,000, a window above 366 days or not a whole number of microseconds, a bucket whose full refill
 * (burst x window / limit) takes longer than 366 days.
 */
class OutsideExactRangeTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.bytes.limit", "20000000")
            .overrideConfigKey("quarkus.ratelimit.policies.bytes.window", "1s")
            .overrideConfigKey("quarkus.ratelimit.policies.yearly.algorithm", "fixed-window")
            .overrideConfigKey("quarkus.ratelimit.policies.yearly.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.yearly.window", "400d")
            .overrideConfigKey("quarkus.ratelimit.policies.slow.algorithm", "gcra")
            .overrideConfigKey("quarkus.ratelimit.policies.slow.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.slow.window", "30d")
            .overrideConfigKey("quarkus.ratelimit.policies.slow.burst", "13")
            .overrideConfigKey("quarkus.ratelimit.policies.nanos.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.nanos.window", "PT1.0000005S")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 4);
                for (RateLimitValidationException p : problems) {
                    assertInstanceOf(RateLimitValidationException.InvalidPolicyException.class, p);
                }
                assertNames(problems.get(0), "bytes", property("bytes", "limit"));
                assertTrue(problems.get(0).getMessage().contains("10000000"), problems.get(0).getMessage());
                assertNames(problems.get(1), "nanos", property("nanos", "window"));
                assertNames(problems.get(2), "slow", property("slow", "burst"));
                assertNames(problems.get(3), "yearly", property("yearly", "window"));
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("bytes")
        @RateLimit("yearly")
        @RateLimit("slow")
        @RateLimit("nanos")
        public String call() {
            return "ok";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
