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

/** A {@code paths} pattern that does not parse (no leading slash, a star that is not a last segment) fails the build. */
class InvalidPathTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.public.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.public.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.public.paths", "public/*,/a*b,/ok/*")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 2);
                var relative = find(problems, RateLimitValidationException.InvalidPathException.class, "'public/*'");
                assertNames(relative, "public", property("public", "paths"));
                var star = find(problems, RateLimitValidationException.InvalidPathException.class, "'/a*b'");
                assertNames(star, "public", property("public", "paths"));
            });

    @ApplicationScoped
    public static class Service {
        public String unused() {
            return "no annotation needed for a path policy";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
