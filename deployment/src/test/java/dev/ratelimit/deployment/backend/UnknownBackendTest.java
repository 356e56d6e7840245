package dev.ratelimit.deployment.backend;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.deployment.StartFailures;
import io.quarkus.test.QuarkusUnitTest;

/** A {@code quarkus.ratelimit.backend} naming no backend fails the start, naming the ones there are. */
class UnknownBackendTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "memcached")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            .assertException(StartFailures.configurationNaming("quarkus.ratelimit.backend is 'memcached'",
                    "use one of local, redis"));

    @Test
    void startFails() {
        fail("the start must fail");
    }
}
