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

/** {@code @RateLimit} on a static method (interceptors only see instance methods) fails the build. */
class StaticMethodTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.exports.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.exports.window", "1m")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 1);
                var e = assertInstanceOf(RateLimitValidationException.StaticMethodException.class, problems.get(0));
                assertNames(e, Service.class.getName(), "checksumOf", "exports", "static");
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("exports")
        public static String checksumOf(String s) {
            return Integer.toHexString(s.hashCode());
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
