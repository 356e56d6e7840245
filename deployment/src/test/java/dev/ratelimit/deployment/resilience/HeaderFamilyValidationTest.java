package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** {@code quarkus.ratelimit.http.headers} lists ietf, legacy or none: another family fails the start naming it. */
class HeaderFamilyValidationTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = StartupValidation.failsOn("quarkus.ratelimit.http.headers", "ietf,draft7",
            "quarkus.ratelimit.http.headers", "draft7");

    @Test
    void rejected() {
        fail("the application must not start");
    }
}
