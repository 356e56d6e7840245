package dev.ratelimit.deployment.settle;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;

/** {@link CountByOutcomeScenarios} on Redis. */
class CountByOutcomeRedisTest extends CountByOutcomeScenarios {

    @RegisterExtension
    static final QuarkusUnitTest TEST = application()
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");
}
