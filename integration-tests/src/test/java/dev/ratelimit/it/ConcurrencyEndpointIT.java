package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link ConcurrencyEndpointTest} against the packaged application (the native executable with {@code -Dnative}). */
@QuarkusIntegrationTest
class ConcurrencyEndpointIT extends ConcurrencyEndpointTest {
}
