package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.assertNames;
import static dev.ratelimit.deployment.validation.ValidationProblems.find;
import static dev.ratelimit.deployment.validation.ValidationProblems.problems;
import static dev.ratelimit.deployment.validation.ValidationProblems.property;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;

/** A key source that cannot parse (a {@code header:} without a valid header name), in a policy or in an annotation, fails the build. */
class InvalidKeySourceTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.partner.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.partner.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.partner.key", "header:")
            .overrideConfigKey("quarkus.ratelimit.policies.tenant.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.tenant.window", "1m")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 2);
                var inPolicy = find(problems, RateLimitValidationException.InvalidKeyException.class, "partner");
                assertNames(inPolicy, "header:", property("partner", "key"));
                var inAnnotation = find(problems, RateLimitValidationException.InvalidKeyException.class, "tenant");
                assertNames(inAnnotation, Service.class.getName(), "quoteForTenant", "header:X Tenant", "key");
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("partner")
        public String quote() {
            return "quote";
        }

        @RateLimit(value = "tenant", key = "header:X Tenant")
        public String quoteForTenant() {
            return "quote";
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
