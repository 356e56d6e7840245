package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.allMessages;
import static dev.ratelimit.deployment.validation.ValidationProblems.property;
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
 * The build checked {@code cost=5} against {@code limit=10}; at start-up the limit is 2, so the
 * annotated method could never be admitted. That must fail the start (naming the method and the
 * property), not answer every call with an error.
 */
class RuntimeCostAboveCapacityTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Exporter.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.exports.limit", "10")
            .overrideConfigKey("quarkus.ratelimit.policies.exports.window", "1m")
            .overrideRuntimeConfigKey("quarkus.ratelimit.backend", "local")
            .overrideRuntimeConfigKey("quarkus.ratelimit.policies.exports.limit", "2")
            .assertException(t -> {
                String messages = allMessages(t);
                assertFalse(messages.contains(DeploymentException.class.getName()),
                        "the build saw limit=10 and must pass; only the start may fail:\n" + messages);
                for (String fragment : new String[] { Exporter.class.getName(), "exportAll", "exports", "5",
                        property("exports", "limit") }) {
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
