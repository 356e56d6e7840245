package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.assertNames;
import static dev.ratelimit.deployment.validation.ValidationProblems.find;
import static dev.ratelimit.deployment.validation.ValidationProblems.problems;
import static dev.ratelimit.deployment.validation.ValidationProblems.property;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;

/** A cost that is not positive, or more than the policy could ever admit, fails the build. */
class InvalidCostTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.reads.algorithm", "fixed-window")
            .overrideConfigKey("quarkus.ratelimit.policies.reads.limit", "10")
            .overrideConfigKey("quarkus.ratelimit.policies.reads.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.bursty.algorithm", "token-bucket")
            .overrideConfigKey("quarkus.ratelimit.policies.bursty.limit", "100")
            .overrideConfigKey("quarkus.ratelimit.policies.bursty.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.bursty.burst", "5")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 3);
                var free = find(problems, RateLimitValidationException.InvalidCostException.class, "freeRead");
                assertNames(free, Service.class.getName(), "reads", "cost", "0");
                var tooMuch = find(problems, RateLimitValidationException.InvalidCostException.class, "hugeRead");
                assertNames(tooMuch, Service.class.getName(), "reads", "11", property("reads", "limit"));
                // capacity of a bucket is its burst: that is the property to raise
                var overBurst = find(problems, RateLimitValidationException.InvalidCostException.class, "burstyRead");
                assertNames(overBurst, Service.class.getName(), "bursty", "6", property("bursty", "burst"));
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit(value = "reads", cost = 0)
        public String freeRead() {
            return "a";
        }

        @RateLimit(value = "reads", cost = 11)
        public String hugeRead() {
            return "b";
        }

        @RateLimit(value = "reads", cost = 10)
        public String largestRead() {
            return "fine: exactly the limit";
        }

        @RateLimit(value = "bursty", cost = 6)
        public String burstyRead() {
            return "c";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
