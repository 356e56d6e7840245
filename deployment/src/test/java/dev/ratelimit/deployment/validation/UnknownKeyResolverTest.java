package dev.ratelimit.deployment.validation;

import static dev.ratelimit.deployment.validation.ValidationProblems.allMessages;
import static dev.ratelimit.deployment.validation.ValidationProblems.property;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A policy key that is no built-in source names a {@code KeyResolver} bean; when there is none, the
 * application must not start (build or start-up), and the message names the property.
 */
class UnknownKeyResolverTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Service.class))
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.policies.tenants.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.tenants.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.tenants.key", "tenant-id")
            .assertException(t -> {
                String messages = allMessages(t);
                for (String fragment : new String[] { "tenant-id", property("tenants", "key"), "KeyResolver" }) {
                    assertTrue(messages.contains(fragment), "the failure should name '" + fragment + "':\n" + messages);
                }
            });

    @ApplicationScoped
    public static class Service {
        @RateLimit("tenants")
        public String report() {
            return "report";
        }
    }

    @Test
    void startFails() {
        fail("the application must not start");
    }
}
