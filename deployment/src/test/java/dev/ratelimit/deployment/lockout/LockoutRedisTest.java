package dev.ratelimit.deployment.lockout;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;

/** {@link LockoutScenarios} on Redis: the lock-out lives beside the key, as {@code <key>:locked}. */
class LockoutRedisTest extends LockoutScenarios {

    @RegisterExtension
    static final QuarkusUnitTest TEST = application()
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");

    @Override
    protected RateLimitDecision.Source expectedSource() {
        return RateLimitDecision.Source.REDIS;
    }
}
