package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.assertNames;
import static dev.ratelimit.deployment.validation.ValidationProblems.problems;
import static dev.ratelimit.deployment.validation.ValidationProblems.property;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.deployment.validation.RateLimitValidationException.UnknownPolicyException;
import io.quarkus.test.QuarkusUnitTest;

/** {@code @RateLimit} naming a policy that no property defines fails the build. */
class UnknownPolicyTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Reports.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.reports.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.reports.window", "1m")
            .assertException(t -> {
                UnknownPolicyException e = assertInstanceOf(UnknownPolicyException.class, problems(t, 1).get(0));
                assertNames(e, Reports.class.getName(), "buildQuarterlyReport", "\"reprots\"",
                        property("reprots", "limit"), property("reprots", "window"), "reports");
            });

    @ApplicationScoped
    public static class Reports {
        @RateLimit("reprots")
        public String buildQuarterlyReport() {
            return "report";
        }

        @RateLimit("reports")
        public String listReports() {
            return "ok";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
