package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link BusinessLimitsTest} against the packaged application (the native executable with {@code -Dnative}). */
@QuarkusIntegrationTest
class BusinessLimitsIT extends BusinessLimitsTest {
}
