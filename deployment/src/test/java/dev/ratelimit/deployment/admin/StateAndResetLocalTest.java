package dev.ratelimit.deployment.admin;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision;
import io.quarkus.test.QuarkusUnitTest;

/** {@link StateAndResetScenarios} on the in-process backend. */
class StateAndResetLocalTest extends StateAndResetScenarios {

    @RegisterExtension
    static final QuarkusUnitTest TEST = application()
            .withApplicationRoot(jar -> jar.addClasses(StateAndResetScenarios.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local");

    @Override
    protected RateLimitDecision.Source expectedSource() {
        return RateLimitDecision.Source.LOCAL;
    }
}
