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
import io.quarkus.vertx.ConsumeEvent;
import io.smallrye.mutiny.Uni;

/**
 * A plain method that runs on an event loop cannot wait for admission without blocking it: an event-bus consumer
 * ({@code @ConsumeEvent}, not blocking) on a policy with {@code max-wait} fails the build, naming the method and the
 * property; the same policy on a {@code Uni} method, on a blocking consumer, or on a plain method that may run on a
 * worker thread, is no problem.
 */
class WaitOnEventLoopTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Outbound.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey(P + "partner.limit", "10")
            .overrideConfigKey(P + "partner.window", "1s")
            .overrideConfigKey(P + "partner.max-wait", "2s")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 1);
                var e = find(problems, RateLimitValidationException.AsynchronousReturnTypeException.class, "quick");
                assertNames(e, "@ConsumeEvent", "max-wait", P + "partner.max-wait", "Outbound");
            });

    @ApplicationScoped
    public static class Outbound {
        @ConsumeEvent("quotes")
        @RateLimit("partner")
        public String quick(String symbol) {
            return "a";
        }

        @ConsumeEvent(value = "slow-quotes", blocking = true)
        @RateLimit("partner")
        public String patient(String symbol) {
            return "d";
        }

        @RateLimit("partner")
        public Uni<String> reactive() {
            return Uni.createFrom().item("b");
        }

        @RateLimit("partner")
        public String onWorker() {
            return "c";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
