package dev.ratelimit.deployment.backend;


import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.deployment.RateLimitBackendBuildItem;
import dev.ratelimit.deployment.backend.ContributedBackendTest.Counting;
import dev.ratelimit.deployment.backend.ContributedBackendTest.CountingProvider;
import dev.ratelimit.deployment.StartFailures;
import io.quarkus.builder.BuildContext;
import io.quarkus.builder.BuildStep;
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
            .assertException(StartFailures.configurationNaming("'counting' keeps no per-key overrides",
                    "quarkus.ratelimit.policies.api.overrides=true"));

    @Test
    void theStartFails() {
        // the assertion is the extension's
    }
}
