package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code quarkus.ratelimit.fail-closed-status} accepts 429 and 503 only: anything else fails the start with a
 * message naming the property.
 */
class FailClosedStatusValidationTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = StartupValidation.failsOn("quarkus.ratelimit.fail-closed-status", "500",
            "quarkus.ratelimit.fail-closed-status is 500", "429", "503");

    @Test
    void rejected() {
        fail("the application must not start");
    }
}
