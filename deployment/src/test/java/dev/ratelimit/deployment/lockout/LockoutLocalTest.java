package dev.ratelimit.deployment.lockout;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision;
import io.quarkus.test.QuarkusUnitTest;

/** {@link LockoutScenarios} on the in-process backend. */
class LockoutLocalTest extends LockoutScenarios {

    @RegisterExtension
    static final QuarkusUnitTest TEST = application()
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");

    @Override
    protected RateLimitDecision.Source expectedSource() {
        return RateLimitDecision.Source.LOCAL;
    }
}
