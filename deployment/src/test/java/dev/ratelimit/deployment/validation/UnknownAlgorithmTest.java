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

/** A policy whose algorithm is not one of the six fails the build, naming the property and the choices. */
class UnknownAlgorithmTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.search.algorithm", "leaky-buckets")
            .overrideConfigKey("quarkus.ratelimit.policies.search.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.search.window", "1m")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 1);
                var e = assertInstanceOf(RateLimitValidationException.InvalidPolicyException.class, problems.get(0));
                assertNames(e, "search", "leaky-buckets", property("search", "algorithm"), "fixed-window",
                        "sliding-window-log", "sliding-window-counter", "token-bucket", "leaky-bucket", "gcra");
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("search")
        public String search(String q) {
            return q;
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
