package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code quarkus.ratelimit.fail-closed-status} accepts 429 and 503 only: anything else fails the start with a
 * message naming the property.
 */
class FailClosedStatusValidationTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.fail-closed-status", "500")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            .assertException(t -> {
                for (Throwable c = t; c != null; c = c.getCause()) {
                    String m = c.getMessage();
                    if (m != null && m.contains("quarkus.ratelimit.fail-closed-status is 500")) {
                        assertTrue(m.contains("429") && m.contains("503"), m);
                        return;
                    }
                }
                fail("the start should fail on fail-closed-status=500", t);
            });

    @Test
    void rejected() {
        fail("the application must not start");
    }
}
