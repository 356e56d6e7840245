package dev.ratelimit.deployment.settle;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;

/** {@link ReservationScenarios} on Redis. */
class ReservationRedisTest extends ReservationScenarios {

    @RegisterExtension
    static final QuarkusUnitTest TEST = application()
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");
}
