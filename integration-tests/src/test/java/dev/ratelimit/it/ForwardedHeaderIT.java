package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link ForwardedHeaderTest} against the packaged application: the native executable with {@code -Dnative}, else
 * the runnable jar. Redis comes from the same test resource, passed to the application as configuration.
 * The inherited {@code @TestProfile} restarts the application with the profile's configuration.
 */
@QuarkusIntegrationTest
class ForwardedHeaderIT extends ForwardedHeaderTest {
}
