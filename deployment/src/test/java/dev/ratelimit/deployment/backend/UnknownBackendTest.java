package dev.ratelimit.deployment.backend;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.runtime.configuration.ConfigurationException;
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
            .assertException(t -> {
                Throwable c = t;
                while (c != null && !(c instanceof ConfigurationException)) {
                    c = c.getCause();
                }
                assertTrue(c != null, "a ConfigurationException must fail the start: " + t);
                String m = c.getMessage();
                assertTrue(m.contains("quarkus.ratelimit.backend is 'memcached'"), m);
                assertTrue(m.contains("use one of local, redis"), m);
            });

    @Test
    void startFails() {
        fail("the start must fail");
    }
}
