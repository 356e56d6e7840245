package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** {@code quarkus.ratelimit.local.max-keys} must be positive: 0 fails the start with a message naming the property. */
class LocalMaxKeysValidationTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = StartupValidation.failsOn("quarkus.ratelimit.local.max-keys", "0",
            "quarkus.ratelimit.local.max-keys is 0", "set it to 1 or more");

    @Test
    void rejected() {
        fail("the application must not start");
    }
}
