package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.assertNames;
import static dev.ratelimit.deployment.validation.ValidationProblems.find;
import static dev.ratelimit.deployment.validation.ValidationProblems.problems;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code max-wait} only where a denial has an end to wait for and within bounds: not with {@code concurrency} (a slot
 * frees when some request ends), not with {@code mode=shadow} (never denies), from 1 ms to 1 h; the build names each
 * policy and the property.
 */
class InvalidMaxWaitTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey(P + "slots.algorithm", "concurrency")
            .overrideConfigKey(P + "slots.limit", "5")
            .overrideConfigKey(P + "slots.window", "1m")
            .overrideConfigKey(P + "slots.max-wait", "1s")
            .overrideConfigKey(P + "watching.limit", "5")
            .overrideConfigKey(P + "watching.window", "1m")
            .overrideConfigKey(P + "watching.mode", "shadow")
            .overrideConfigKey(P + "watching.max-wait", "1s")
            .overrideConfigKey(P + "patient.limit", "5")
            .overrideConfigKey(P + "patient.window", "1m")
            .overrideConfigKey(P + "patient.max-wait", "2h")
            .overrideConfigKey(P + "fine.limit", "5")
            .overrideConfigKey(P + "fine.window", "1m")
            .overrideConfigKey(P + "fine.max-wait", "500ms")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 3);
                var E = RateLimitValidationException.InvalidPolicyException.class;
                assertNames(find(problems, E, "'slots'"), "concurrency", P + "slots.max-wait");
                assertNames(find(problems, E, "'watching'"), "mode=shadow", P + "watching.max-wait");
                assertNames(find(problems, E, "'patient'"), "PT2H", "1ms to 1h", P + "patient.max-wait");
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("fine")
        public String fine() {
            return "a";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
