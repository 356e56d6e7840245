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
import dev.ratelimit.deployment.StartFailures;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A plan's values may change at start-up like a policy's; one the build never saw (here a runtime-only
 * {@code plans.gold.limit=0}) fails the start, naming the plan's property, in the start's one report.
 */
class RuntimePlanValueTest {

    private static final String GOLD_LIMIT = "quarkus.ratelimit.policies.search.plans.gold.limit";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.search.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.search.window", "1m")
            .overrideConfigKey(GOLD_LIMIT, "50")
            .overrideRuntimeConfigKey("quarkus.ratelimit.backend", "local")
            .overrideRuntimeConfigKey(GOLD_LIMIT, "0")
            .assertException(t -> {
                String messages = allMessages(t);
                assertFalse(messages.contains(DeploymentException.class.getName()),
                        "the build saw limit=50 and must pass; only the start may fail:\n" + messages);
                Throwable c = StartFailures.configuration(t);
                assertTrue(c.getMessage().contains(GOLD_LIMIT), c.getMessage());
                assertTrue(c.getMessage().contains("Plan 'gold' of policy 'search'"), c.getMessage());
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
