package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link ExemptionTest} against the packaged application (the native executable with {@code -Dnative}). */
@QuarkusIntegrationTest
class ExemptionIT extends ExemptionTest {
}
