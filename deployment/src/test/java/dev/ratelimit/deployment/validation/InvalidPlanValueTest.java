package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.assertNames;
import static dev.ratelimit.deployment.validation.ValidationProblems.find;
import static dev.ratelimit.deployment.validation.ValidationProblems.problems;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A plan's values are held to the same rules as a policy's, and the build names the plan's property: a limit that is
 * not positive, a window under a millisecond (on a plan whose name needs quotes), a burst on an algorithm without one,
 * and a bucket that would take longer than 366 days to refill. A valid plan beside them is no problem.
 */
class InvalidPlanValueTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey(P + "api.algorithm", "fixed-window")
            .overrideConfigKey(P + "api.limit", "10")
            .overrideConfigKey(P + "api.window", "1m")
            .overrideConfigKey(P + "api.plans.gold.limit", "0")
            .overrideConfigKey(P + "api.plans.\"silver.v2\".window", "0ms")
            .overrideConfigKey(P + "api.plans.bronze.burst", "5")
            .overrideConfigKey(P + "api.plans.fine.limit", "100")
            .overrideConfigKey(P + "bucket.limit", "10")
            .overrideConfigKey(P + "bucket.window", "1m")
            .overrideConfigKey(P + "bucket.plans.slow.limit", "1")
            .overrideConfigKey(P + "bucket.plans.slow.window", "200d")
            .overrideConfigKey(P + "bucket.plans.slow.burst", "2")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 4);
                var gold = find(problems, RateLimitValidationException.InvalidPolicyException.class, "'gold'");
                assertNames(gold, "'api'", "limit 0", P + "api.plans.gold.limit");
                var silver = find(problems, RateLimitValidationException.InvalidPolicyException.class, "silver.v2");
                assertNames(silver, "'api'", "at least 1ms", P + "api.plans.\"silver.v2\".window");
                var bronze = find(problems, RateLimitValidationException.InvalidPolicyException.class, "'bronze'");
                assertNames(bronze, "'api'", "has no burst", P + "api.plans.bronze.burst");
                var slow = find(problems, RateLimitValidationException.InvalidPolicyException.class, "'slow'");
                assertNames(slow, "'bucket'", "within 366d", P + "bucket.plans.slow.burst", P + "bucket.plans.slow.limit");
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("api")
        public String read() {
            return "a";
        }

        @RateLimit("bucket")
        public String fill() {
            return "b";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
