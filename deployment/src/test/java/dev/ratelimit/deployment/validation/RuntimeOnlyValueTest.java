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
import dev.ratelimit.deployment.StartFailures;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Policy values may change at start-up without a rebuild; a value the build never saw (here a
 * runtime-only {@code limit=0}) still fails, at start-up, naming the property.
 */
class RuntimeOnlyValueTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.search.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.search.window", "1m")
            .overrideRuntimeConfigKey("quarkus.ratelimit.backend", "local")
            .overrideRuntimeConfigKey("quarkus.ratelimit.policies.search.limit", "0")
            .assertException(t -> {
                String messages = allMessages(t);
                assertFalse(messages.contains(DeploymentException.class.getName()),
                        "the build saw limit=5 and must pass; only the start may fail:\n" + messages);
                Throwable c = StartFailures.configuration(t);
                assertTrue(c.getMessage().contains(property("search", "limit")), c.getMessage());
                assertTrue(c.getMessage().contains("'search'"), c.getMessage());
                assertTrue(c.getMessage().contains("(1 problem)"), c.getMessage());
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("search")
        public String search(String q) {
            return q;
        }
    }

    @Test
    void startFails() {
        fail("the start must fail");
    }
}
