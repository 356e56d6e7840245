package dev.ratelimit.deployment.backend;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.deployment.RateLimitBackendBuildItem;
import dev.ratelimit.deployment.backend.ContributedBackendTest.Counting;
import dev.ratelimit.deployment.backend.ContributedBackendTest.CountingProvider;
import io.quarkus.builder.BuildContext;
import io.quarkus.builder.BuildStep;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A contributed backend that keeps no overrides, chosen with a policy that has {@code overrides=true}: the start fails
 * naming the policy's property and the backends that keep them, rather than deciding the policy on its own values.
 */
class ContributedBackendWithoutOverridesTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(CountingProvider.class, Counting.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "counting")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.api.overrides", "true")
            .addBuildChainCustomizer(chain -> chain.addBuildStep(new BuildStep() {
                @Override
                public void execute(BuildContext context) {
                    context.produce(new RateLimitBackendBuildItem("counting", CountingProvider.class.getName()));
                }
            }).produces(RateLimitBackendBuildItem.class).build())
            .assertException(t -> {
                Throwable c = t;
                while (c != null && !(c instanceof ConfigurationException)) {
                    c = c.getCause();
                }
                assertTrue(c != null, "a ConfigurationException must fail the start: " + t);
                String m = c.getMessage();
                assertTrue(m.contains("'counting' keeps no per-key overrides"), m);
                assertTrue(m.contains("quarkus.ratelimit.policies.api.overrides=true"), m);
            });

    @Test
    void theStartFails() {
        // the assertion is the extension's
    }
}
