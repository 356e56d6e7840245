package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link PathSpellingsTest} against the packaged application: the native executable with {@code -Dnative}, else
 * the runnable jar. Redis comes from the same test resource, passed to the application as configuration.
 */
@QuarkusIntegrationTest
class PathSpellingsIT extends PathSpellingsTest {
}
