package dev.ratelimit.deployment.lockout;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code block-for} where a denial means nothing to lock out fails the build, naming the property: with
 * {@code mode=shadow} (never denies), with {@code concurrency} (a slot frees when a request ends), below 1 ms.
 */
class LockoutRefusedTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.dark.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.dark.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.dark.mode", "shadow")
            .overrideConfigKey("quarkus.ratelimit.policies.dark.block-for", "10m")
            .overrideConfigKey("quarkus.ratelimit.policies.slots.algorithm", "concurrency")
            .overrideConfigKey("quarkus.ratelimit.policies.slots.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.slots.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.slots.block-for", "10m")
            .overrideConfigKey("quarkus.ratelimit.policies.tiny.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.tiny.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.tiny.block-for", "0s")
            .assertException(t -> {
                StringBuilder all = new StringBuilder();
                for (Throwable c = t; c != null; c = c.getCause()) {
                    all.append(c.getMessage()).append('\n');
                }
                String m = all.toString();
                assertTrue(m.contains("quarkus.ratelimit.policies.dark.block-for") && m.contains("mode=shadow"), m);
                assertTrue(m.contains("quarkus.ratelimit.policies.slots.block-for") && m.contains("concurrency"), m);
                assertTrue(m.contains("quarkus.ratelimit.policies.tiny.block-for") && m.contains("at least 1ms"), m);
            });

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
