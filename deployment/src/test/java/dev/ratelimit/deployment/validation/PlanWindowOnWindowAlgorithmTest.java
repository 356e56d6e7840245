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
 * A plan of {@code fixed-window} or {@code sliding-window-counter} may not change the window: those algorithms count
 * per window, indexed by {@code now / window}, so a client alternating between a plan of 5 per hour and one of 10 per
 * 30 minutes started from zero at every switch (40 alternating requests were all admitted). The build names the
 * plan's window property. A plan of those algorithms that changes only its limit, and plans of a log or a bucket that
 * change their window (both keep what a client used), are no problem.
 */
class PlanWindowOnWindowAlgorithmTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey(P + "fixed.algorithm", "fixed-window")
            .overrideConfigKey(P + "fixed.limit", "5")
            .overrideConfigKey(P + "fixed.window", "1h")
            .overrideConfigKey(P + "fixed.plans.pro.limit", "10")
            .overrideConfigKey(P + "fixed.plans.pro.window", "30m")
            .overrideConfigKey(P + "fixed.plans.more.limit", "50")
            .overrideConfigKey(P + "counter.algorithm", "sliding-window-counter")
            .overrideConfigKey(P + "counter.limit", "5")
            .overrideConfigKey(P + "counter.window", "1h")
            .overrideConfigKey(P + "counter.plans.pro.window", "2h")
            .overrideConfigKey(P + "log.algorithm", "sliding-window-log")
            .overrideConfigKey(P + "log.limit", "5")
            .overrideConfigKey(P + "log.window", "1h")
            .overrideConfigKey(P + "log.plans.pro.window", "30m")
            .overrideConfigKey(P + "bucket.limit", "5")
            .overrideConfigKey(P + "bucket.window", "1h")
            .overrideConfigKey(P + "bucket.plans.pro.window", "30m")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 2);
                var fixed = find(problems, RateLimitValidationException.InvalidPolicyException.class, "'fixed'");
                assertNames(fixed, "'pro'", "PT30M", "PT1H", "start a new count", P + "fixed.plans.pro.window",
                        "sliding-window-log");
                var counter = find(problems, RateLimitValidationException.InvalidPolicyException.class, "'counter'");
                assertNames(counter, "'pro'", "PT2H", P + "counter.plans.pro.window");
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("fixed")
        public String fixed() {
            return "a";
        }

        @RateLimit("counter")
        public String counter() {
            return "b";
        }

        @RateLimit("log")
        public String log() {
            return "c";
        }

        @RateLimit("bucket")
        public String bucket() {
            return "d";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
