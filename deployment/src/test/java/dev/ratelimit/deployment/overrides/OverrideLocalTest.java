package dev.ratelimit.deployment.overrides;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision;
import io.quarkus.test.QuarkusUnitTest;

/** {@link OverrideScenarios} with {@code backend=local}: the instance keeps the overrides. */
class OverrideLocalTest extends OverrideScenarios {

    @RegisterExtension
    static final QuarkusUnitTest TEST = application()
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");

    @Override
    protected RateLimitDecision.Source expectedSource() {
        return RateLimitDecision.Source.LOCAL;
    }
}
