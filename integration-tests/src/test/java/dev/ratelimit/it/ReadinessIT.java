package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link ReadinessTest} against the packaged application (the native executable with {@code -Dnative}). */
@QuarkusIntegrationTest
class ReadinessIT extends ReadinessTest {
}
