package dev.ratelimit.deployment.admin;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.deployment.StartFailures;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The admin endpoint enabled on a management interface without authentication would answer anybody: the build fails,
 * naming what to enable.
 */
class AdminWithoutManagementAuthTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.management.enabled", "true")
            .overrideConfigKey("quarkus.ratelimit.admin.enabled", "true")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "3")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1h")
            .assertException(StartFailures.configurationNaming("quarkus.ratelimit.admin.enabled=true",
                    "quarkus.management.auth.enabled=true", "quarkus.management.auth.basic=true"));

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
