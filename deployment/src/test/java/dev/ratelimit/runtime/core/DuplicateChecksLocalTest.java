package dev.ratelimit.runtime.core;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** {@link DuplicateChecks} decided in process ({@code backend=local}). */
class DuplicateChecksLocalTest extends DuplicateChecks {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(DuplicateChecks.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey(POLICY_PROPERTIES + "limit", "10")
            .overrideConfigKey(POLICY_PROPERTIES + "window", "1h");
}
