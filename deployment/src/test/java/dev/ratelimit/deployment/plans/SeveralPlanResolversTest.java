package dev.ratelimit.deployment.plans;

import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.PlanResolver;
import dev.ratelimit.deployment.StartFailures;
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
            .assertException(StartFailures.configurationNaming("Several PlanResolver beans",
                    HeaderPlan.class.getName(), Other.class.getName()));

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
