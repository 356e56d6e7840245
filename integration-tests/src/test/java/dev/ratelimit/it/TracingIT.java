package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link TracingTest} against the packaged application (the native executable with {@code -Dnative}). */
@QuarkusIntegrationTest
class TracingIT extends TracingTest {
}
