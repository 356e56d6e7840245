package dev.ratelimit.deployment.plans;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.PlanResolver;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.http.HttpServerRequest;

/** A request's plan comes from one {@code PlanResolver}: with two beans the start fails, naming both. */
class SeveralPlanResolversTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(HeaderPlan.class, Other.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.api.plans.gold.limit", "5")
            .assertException(t -> {
                Throwable c = t;
                while (c != null && !(c instanceof ConfigurationException)) {
                    c = c.getCause();
                }
                assertTrue(c != null, "a ConfigurationException must fail the start: " + t);
                String m = c.getMessage();
                assertTrue(m.contains("Several PlanResolver beans"), m);
                assertTrue(m.contains(HeaderPlan.class.getName()) && m.contains(Other.class.getName()), m);
            });

    @ApplicationScoped
    public static class Other implements PlanResolver {
        @Override
        public String plan(String policy, HttpServerRequest request) {
            return "gold";
        }
    }

    @Test
    void startFails() {
        fail("the start must fail");
    }
}
