package dev.ratelimit.deployment.health;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** With the in-process backend the check is UP and says so; no Redis is asked. */
class LocalBackendReadinessTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Readiness.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "10")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m");

    @Test
    void upOnTheLocalBackend() {
        Readiness.Seen s = Readiness.now();
        assertEquals("UP", s.state());
        assertEquals(200, s.status());
        assertEquals("local", s.data().get("backend"));
    }
}
