package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/**
 * The start checks the whole configuration before it fails: two bad settings and a cost above what the policy admits
 * as configured at start-up come in one report, so one restart shows everything to fix.
 */
class SeveralStartupProblemsTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = StartupValidation.failsOn("quarkus.ratelimit.fail-closed-status", "500",
            "Invalid rate-limit configuration (2 problems)", "quarkus.ratelimit.fail-closed-status is 500",
            "quarkus.ratelimit.local.max-keys is 0")
            .overrideRuntimeConfigKey("quarkus.ratelimit.local.max-keys", "0");

    @Test
    void rejected() {
        fail("the application must not start");
    }
}
