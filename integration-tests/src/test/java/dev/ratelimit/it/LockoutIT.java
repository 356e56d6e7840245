package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link LockoutTest} against the packaged application (the native executable with {@code -Dnative}). */
@QuarkusIntegrationTest
class LockoutIT extends LockoutTest {
}
