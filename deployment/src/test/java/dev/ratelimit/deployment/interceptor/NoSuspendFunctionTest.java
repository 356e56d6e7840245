package dev.ratelimit.deployment.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.runtime.interceptor.SuspendFunctions;
import io.quarkus.arc.Arc;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Without a limited Kotlin {@code suspend} function, the classes that decide them (the only ones referring to Kotlin)
 * are no beans: an application without Kotlin never loads them, and its native build never links them. The
 * interceptor works without them.
 */
class NoSuspendFunctionTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Plain.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.plain.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.plain.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.plain.key", "global");

    @ApplicationScoped
    public static class Plain {
        @RateLimit("plain")
        public String call() {
            return "plain";
        }
    }

    @Inject
    Plain plain;

    @Test
    void noKotlinBeanWithoutASuspendFunction() {
        assertFalse(Arc.container().select(SuspendFunctions.class).isResolvable());
        assertEquals("plain", plain.call());
        assertThrows(RateLimitExceededException.class, plain::call);
    }
}
