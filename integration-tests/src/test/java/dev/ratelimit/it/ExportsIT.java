package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link ExportsTest} against the packaged application: the native executable with {@code -Dnative}, else the runnable jar. */
@QuarkusIntegrationTest
class ExportsIT extends ExportsTest {
}
