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

/** A burst of zero or less fails the build, naming the property. */
class NonPositiveBurstTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.uploads.algorithm", "gcra")
            .overrideConfigKey("quarkus.ratelimit.policies.uploads.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.uploads.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.uploads.burst", "0")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 1);
                var e = assertInstanceOf(RateLimitValidationException.InvalidPolicyException.class, problems.get(0));
                assertNames(e, "uploads", property("uploads", "burst"));
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("uploads")
        public String upload() {
            return "ok";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
