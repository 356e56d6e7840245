package dev.ratelimit.deployment.settle;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** {@link CountByOutcomeScenarios} on the in-process backend. */
class CountByOutcomeLocalTest extends CountByOutcomeScenarios {

    @RegisterExtension
    static final QuarkusUnitTest TEST = application()
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");
}
