package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.assertNames;
import static dev.ratelimit.deployment.validation.ValidationProblems.find;
import static dev.ratelimit.deployment.validation.ValidationProblems.problems;
import static dev.ratelimit.deployment.validation.ValidationProblems.property;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.deployment.validation.RateLimitValidationException.PrivateMethodException;
import dev.ratelimit.deployment.validation.RateLimitValidationException.UnknownPolicyException;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A private {@code @RateLimit} method must not hide the build's other problems: ArC on its own
 * fails at bean discovery on an intercepted private method
 * ({@code quarkus.arc.fail-on-intercepted-private-method}), before any validation-phase error is
 * reported; the extension must report it with the others, in its own words.
 */
class PrivateMethodAmongOtherProblemsTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Orders.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 2);
                assertNames(find(problems, PrivateMethodException.class, "audit"), Orders.class.getName(), "api");
                assertNames(find(problems, UnknownPolicyException.class, "orderz"), Orders.class.getName(), "cancel",
                        property("orderz", "limit"));
            });

    @ApplicationScoped
    public static class Orders {
        @RateLimit("orderz")
        public String cancel(String id) {
            return audit(id);
        }

        @RateLimit("api")
        private String audit(String id) {
            return id;
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
