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
 * Quota leasing ({@code lease}) only where a slice can be bounded, with values that mean something: the build names
 * each policy and what to change. Not with {@code concurrency} (a slot is no unit), nor {@code sliding-window-log}
 * (each entry keeps its own instant), nor counting by outcome (every request is reserved and settled); a slice is a
 * whole number of units from 2 to the capacity.
 */
class InvalidLeaseTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey(P + "slots.algorithm", "concurrency")
            .overrideConfigKey(P + "slots.limit", "5")
            .overrideConfigKey(P + "slots.window", "1m")
            .overrideConfigKey(P + "slots.lease", "auto")
            .overrideConfigKey(P + "log.algorithm", "sliding-window-log")
            .overrideConfigKey(P + "log.limit", "5")
            .overrideConfigKey(P + "log.window", "1h")
            .overrideConfigKey(P + "log.lease", "auto")
            .overrideConfigKey(P + "logins.limit", "5")
            .overrideConfigKey(P + "logins.window", "1h")
            .overrideConfigKey(P + "logins.count", "failures")
            .overrideConfigKey(P + "logins.lease", "auto")
            .overrideConfigKey(P + "big.limit", "50")
            .overrideConfigKey(P + "big.window", "1s")
            .overrideConfigKey(P + "big.lease", "51")
            .overrideConfigKey(P + "word.limit", "50")
            .overrideConfigKey(P + "word.window", "1s")
            .overrideConfigKey(P + "word.lease", "lots")
            .overrideConfigKey(P + "fine.limit", "50")
            .overrideConfigKey(P + "fine.window", "1s")
            .overrideConfigKey(P + "fine.lease", "50")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 5);
                var E = RateLimitValidationException.InvalidPolicyException.class;
                assertNames(find(problems, E, "'slots'"), "concurrency", P + "slots.lease");
                assertNames(find(problems, E, "'log'"), "sliding-window-log", "sliding-window-counter", P + "log.lease");
                assertNames(find(problems, E, "'logins'"), "count", P + "logins.lease");
                assertNames(find(problems, E, "'big'"), "lease=51", "(50)", P + "big.lease");
                assertNames(find(problems, E, "'word'"), "lease=lots", "off, auto", P + "word.lease");
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
