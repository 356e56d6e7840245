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

/** A window of zero or less fails the build, naming the property. */
class NonPositiveWindowTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.instant.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.instant.window", "0s")
            .overrideConfigKey("quarkus.ratelimit.policies.backwards.algorithm", "sliding-window-log")
            .overrideConfigKey("quarkus.ratelimit.policies.backwards.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.backwards.window", "-5s")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 2);
                var zero = find(problems, RateLimitValidationException.InvalidPolicyException.class, "instant");
                assertNames(zero, property("instant", "window"));
                var negative = find(problems, RateLimitValidationException.InvalidPolicyException.class, "backwards");
                assertNames(negative, property("backwards", "window"));
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("instant")
        public String a() {
            return "a";
        }

        @RateLimit("backwards")
        public String b() {
            return "b";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
