package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.quarkus.test.QuarkusUnitTest;

/** An application on the local backend whose start must fail on one bad runtime property. */
final class StartupValidation {

    private StartupValidation() {
    }

    /**
     * @param property the property set to a bad value
     * @param value the bad value
     * @param message what the start-up failure must say, with every {@code alsoSays} in the same message
     */
    static QuarkusUnitTest failsOn(String property, String value, String message, String... alsoSays) {
        return new QuarkusUnitTest()
                .overrideConfigKey("quarkus.http.test-port", "0")
                .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
                .overrideConfigKey("quarkus.ratelimit.backend", "local")
                .overrideConfigKey(property, value)
                .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "2")
                .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
                .assertException(t -> {
                    for (Throwable c = t; c != null; c = c.getCause()) {
                        String m = c.getMessage();
                        if (m != null && m.contains(message)) {
                            for (String s : alsoSays) {
                                assertTrue(m.contains(s), m);
                            }
                            return;
                        }
                    }
                    fail("the start should fail on " + property + "=" + value, t);
                });
    }
}
