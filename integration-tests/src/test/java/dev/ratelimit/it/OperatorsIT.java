package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link OperatorsTest} against the packaged application (the native executable with {@code -Dnative}). */
@QuarkusIntegrationTest
class OperatorsIT extends OperatorsTest {
}
