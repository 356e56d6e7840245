package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** {@code quarkus.ratelimit.http.missing-header} is ip or deny: another value fails the start naming the property. */
class MissingHeaderValidationTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = StartupValidation.failsOn("quarkus.ratelimit.http.missing-header", "maybe",
            "quarkus.ratelimit.http.missing-header", "maybe");

    @Test
    void rejected() {
        fail("the application must not start");
    }
}
