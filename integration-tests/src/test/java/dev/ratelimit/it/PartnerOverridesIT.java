package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link PartnerOverridesTest} against the packaged application (the native executable with {@code -Dnative}). */
@QuarkusIntegrationTest
class PartnerOverridesIT extends PartnerOverridesTest {
}
