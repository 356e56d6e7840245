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

/** A limit of zero or less fails the build, naming the property. */
class NonPositiveLimitTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.zero.limit", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.zero.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.negative.algorithm", "fixed-window")
            .overrideConfigKey("quarkus.ratelimit.policies.negative.limit", "-3")
            .overrideConfigKey("quarkus.ratelimit.policies.negative.window", "1m")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 2);
                var zero = find(problems, RateLimitValidationException.InvalidPolicyException.class, "zero");
                assertNames(zero, property("zero", "limit"), "0");
                var negative = find(problems, RateLimitValidationException.InvalidPolicyException.class, "negative");
                assertNames(negative, property("negative", "limit"), "-3");
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("zero")
        public String a() {
            return "a";
        }

        @RateLimit("negative")
        public String b() {
            return "b";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
