package dev.ratelimit.deployment.settle;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** {@link ReservationScenarios} on the in-process backend. */
class ReservationLocalTest extends ReservationScenarios {

    @RegisterExtension
    static final QuarkusUnitTest TEST = application()
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");
}
