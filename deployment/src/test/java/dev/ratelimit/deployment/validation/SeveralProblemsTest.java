package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.assertNames;
import static dev.ratelimit.deployment.validation.ValidationProblems.find;
import static dev.ratelimit.deployment.validation.ValidationProblems.problems;
import static dev.ratelimit.deployment.validation.ValidationProblems.property;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.deployment.validation.RateLimitValidationException.InvalidCostException;
import dev.ratelimit.deployment.validation.RateLimitValidationException.InvalidKeyException;
import dev.ratelimit.deployment.validation.RateLimitValidationException.InvalidPathException;
import dev.ratelimit.deployment.validation.RateLimitValidationException.InvalidPolicyException;
import dev.ratelimit.deployment.validation.RateLimitValidationException.StaticMethodException;
import dev.ratelimit.deployment.validation.RateLimitValidationException.UnknownPolicyException;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Every problem of a build is reported at once, not only the first: one fix-and-rebuild round.
 * (A private method among them: see {@link PrivateMethodAmongOtherProblemsTest}.)
 */
class SeveralProblemsTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Orders.class, Mailer.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            // api: wrong algorithm and a zero limit
            .overrideConfigKey("quarkus.ratelimit.policies.api.algorithm", "token-buckett")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            // mail: a key that does not parse and a path that does not parse
            .overrideConfigKey("quarkus.ratelimit.policies.mail.limit", "3")
            .overrideConfigKey("quarkus.ratelimit.policies.mail.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.mail.key", "header:")
            .overrideConfigKey("quarkus.ratelimit.policies.mail.paths", "mail/*")
            .assertException(t -> {
                List<RateLimitValidationException> problems = problems(t, 7);
                assertNames(find(problems, InvalidPolicyException.class, property("api", "algorithm")), "token-buckett");
                assertNames(find(problems, InvalidPolicyException.class, property("api", "limit")), "api");
                assertNames(find(problems, InvalidKeyException.class, property("mail", "key")), "header:");
                assertNames(find(problems, InvalidPathException.class, property("mail", "paths")), "mail/*");
                assertNames(find(problems, UnknownPolicyException.class, "orderz"), Orders.class.getName(), "cancel",
                        property("orderz", "limit"));
                assertNames(find(problems, StaticMethodException.class, "format"), Mailer.class.getName());
                assertNames(find(problems, InvalidCostException.class, "sendNewsletter"), Mailer.class.getName(), "mail",
                        "4", property("mail", "limit"));
            });

    @ApplicationScoped
    public static class Orders {
        @RateLimit("api")
        public String list() {
            return "[]";
        }

        @RateLimit("orderz")
        public String cancel(String id) {
            return id;
        }
    }

    @ApplicationScoped
    public static class Mailer {
        @RateLimit(value = "mail", cost = 4)
        public String sendNewsletter() {
            return "sent";
        }

        @RateLimit("mail")
        public static String format(String body) {
            return body.trim();
        }
    }

    @Test
    void buildFails() {
        fail("the build must fail");
    }
}
