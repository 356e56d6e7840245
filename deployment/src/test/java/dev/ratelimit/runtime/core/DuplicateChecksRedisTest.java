package dev.ratelimit.runtime.core;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;

/** {@link DuplicateChecks} decided in Redis. */
class DuplicateChecksRedisTest extends DuplicateChecks {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(DuplicateChecks.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey(POLICY_PROPERTIES + "limit", "10")
            .overrideConfigKey(POLICY_PROPERTIES + "window", "1h");
}
