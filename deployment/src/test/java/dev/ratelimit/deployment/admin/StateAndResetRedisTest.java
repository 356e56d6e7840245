package dev.ratelimit.deployment.admin;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;

/** {@link StateAndResetScenarios} on Redis. */
class StateAndResetRedisTest extends StateAndResetScenarios {

    @RegisterExtension
    static final QuarkusUnitTest TEST = application()
            .withApplicationRoot(jar -> jar.addClasses(StateAndResetScenarios.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");

    @Override
    protected RateLimitDecision.Source expectedSource() {
        return RateLimitDecision.Source.REDIS;
    }
}
