package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.allMessages;
import static dev.ratelimit.deployment.validation.ValidationProblems.assertNames;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.inject.spi.DeploymentException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.deployment.validation.suspending.Reports;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code @RateLimit} on a final Kotlin {@code suspend} function fails the build, naming it (ArC refuses to intercept a
 * final method of a Kotlin class). It must: Kotlin compiles the state machine of a final suspend function into the
 * function, and resumes it after each suspension by calling the function again, virtually, so through the
 * interceptor, which would decide every resumption as a new call. An open suspend function resumes through its static
 * {@code $suspendImpl} instead, which carries the annotations too and is not a limited method of its own.
 */
class FinalSuspendFunctionTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            // the whole package: Reports comes with the continuation classes its suspend functions compile to
            .withApplicationRoot(jar -> jar.addPackage(Reports.class.getPackage()))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.reports.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.reports.window", "1m")
            .assertException(t -> {
                DeploymentException e = assertInstanceOf(DeploymentException.class, t, allMessages(t));
                assertNames(e, Reports.class.getName(), "render(", "title(", "open");
                assertFalse(e.getMessage().contains("archive"), e.getMessage());
                assertFalse(e.getMessage().contains("$suspendImpl"), "not a limited method: " + e.getMessage());
            });

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
