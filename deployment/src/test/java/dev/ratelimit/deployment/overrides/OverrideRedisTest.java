package dev.ratelimit.deployment.overrides;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;

/** {@link OverrideScenarios} on Redis: the override lives beside the key, as {@code <key>:override}. */
class OverrideRedisTest extends OverrideScenarios {

    @RegisterExtension
    static final QuarkusUnitTest TEST = application()
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");

    @Override
    protected RateLimitDecision.Source expectedSource() {
        return RateLimitDecision.Source.REDIS;
    }
}
