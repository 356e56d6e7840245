package dev.ratelimit.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link OpenApiDocumentTest} against the packaged application (the native executable with {@code -Dnative}). */
@QuarkusIntegrationTest
class OpenApiDocumentIT extends OpenApiDocumentTest {
}
