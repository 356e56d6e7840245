package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.allMessages;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.DeploymentException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The build checked {@code cost=5} against plan {@code free} with {@code limit=10}; at start-up that plan's limit is
 * 2, so the method would refuse every request on it. The start fails naming the method, the plan and its property.
 */
class RuntimePlanCostAboveCapacityTest {

    private static final String FREE_LIMIT = "quarkus.ratelimit.policies.exports.plans.free.limit";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Exporter.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.exports.limit", "20")
            .overrideConfigKey("quarkus.ratelimit.policies.exports.window", "1m")
            .overrideConfigKey(FREE_LIMIT, "10")
            .overrideRuntimeConfigKey("quarkus.ratelimit.backend", "local")
            .overrideRuntimeConfigKey(FREE_LIMIT, "2")
            .assertException(t -> {
                String messages = allMessages(t);
                assertFalse(messages.contains(DeploymentException.class.getName()),
                        "the build saw limit=10 and must pass; only the start may fail:\n" + messages);
                for (String fragment : new String[] { Exporter.class.getName(), "exportAll", "exports", "cost=5",
                        "plan 'free'", FREE_LIMIT }) {
                    assertTrue(messages.contains(fragment), "the start failure should name '" + fragment + "':\n" + messages);
                }
            });

    @ApplicationScoped
    public static class Exporter {
        @RateLimit(value = "exports", cost = 5)
        public String exportAll() {
            return "all";
        }
    }

    @Test
    void startFails() {
        fail("the start must fail");
    }
}
