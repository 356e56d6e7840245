package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.allMessages;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code @RateLimit(key = "tenant-id")} names a {@code KeyResolver} bean that does not exist: like
 * the same mistake in a policy's {@code key} property, the application must not start (every call
 * would fail), and the message names the class, the method and the key.
 */
class UnknownAnnotationKeyResolverTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.tenants.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.tenants.window", "1m")
            .assertException(t -> {
                String messages = allMessages(t);
                for (String fragment : new String[] { Service.class.getName(), "monthlyReport", "tenant-id", "KeyResolver" }) {
                    assertTrue(messages.contains(fragment), "the failure should name '" + fragment + "':\n" + messages);
                }
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit(value = "tenants", key = "tenant-id")
        public String monthlyReport() {
            return "report";
        }
    }

    @Test
    void startFails() {
        fail("the application must not start");
    }
}
