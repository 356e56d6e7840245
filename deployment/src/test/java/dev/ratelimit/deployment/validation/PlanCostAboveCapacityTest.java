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
 * An annotation's cost must fit every plan of its policy: a plan with a smaller capacity would refuse every request of
 * its clients. The build names the plan and the plan's property: its limit, or for a bucket its burst. A plan that sets
 * only a limit keeps the policy's burst, so its capacity is that burst.
 */
class PlanCostAboveCapacityTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey(P + "reads.algorithm", "fixed-window")
            .overrideConfigKey(P + "reads.limit", "10")
            .overrideConfigKey(P + "reads.window", "1m")
            .overrideConfigKey(P + "reads.plans.free.limit", "3")
            .overrideConfigKey(P + "reads.plans.pro.limit", "20")
            .overrideConfigKey(P + "bursty.limit", "100")
            .overrideConfigKey(P + "bursty.window", "1m")
            .overrideConfigKey(P + "bursty.burst", "10")
            .overrideConfigKey(P + "bursty.plans.\"trial\".burst", "4")
            .overrideConfigKey(P + "bursty.plans.lite.limit", "5")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 2);
                var free = find(problems, RateLimitValidationException.InvalidCostException.class, "'free'");
                assertNames(free, Service.class.getName(), "exportAll", "reads", "5", "(3)", P + "reads.plans.free.limit");
                var trial = find(problems, RateLimitValidationException.InvalidCostException.class, "'trial'");
                assertNames(trial, Service.class.getName(), "burstyExport", "bursty", "6", "(4)",
                        P + "bursty.plans.trial.burst");
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit(value = "reads", cost = 5)
        public String exportAll() {
            return "a";
        }

        @RateLimit(value = "bursty", cost = 6)
        public String burstyExport() {
            return "b";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
