package dev.ratelimit.deployment.settle;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** A {@code count} that is no outcome, or on a {@code concurrency} policy, fails the build naming the property. */
class CountRefusedTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.typo.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.typo.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.typo.count", "failure")
            .overrideConfigKey("quarkus.ratelimit.policies.slots.algorithm", "concurrency")
            .overrideConfigKey("quarkus.ratelimit.policies.slots.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.slots.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.slots.count", "failures")
            .assertException(t -> {
                StringBuilder all = new StringBuilder();
                for (Throwable c = t; c != null; c = c.getCause()) {
                    all.append(c.getMessage()).append('\n');
                }
                String m = all.toString();
                assertTrue(m.contains("quarkus.ratelimit.policies.typo.count") && m.contains("'failure'"), m);
                assertTrue(m.contains("quarkus.ratelimit.policies.slots.count") && m.contains("concurrency"), m);
            });

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
