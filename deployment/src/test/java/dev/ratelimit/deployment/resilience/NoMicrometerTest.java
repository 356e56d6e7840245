package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import io.quarkus.arc.Arc;
import io.quarkus.bootstrap.classloading.ClassLoaderEventListener;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * Without Micrometer (this module's test class path has none) the application starts and limits, no metrics bean is
 * registered, and neither the extension's Micrometer class nor any Micrometer class is ever loaded.
 */
class NoMicrometerTest {

    /*
     * The listener runs in JUnit's class loader, the test in the application's: a JDK list kept in the system
     * properties is the one object both see.
     */
    private static final String LOADED = "ratelimit.test.resilience.micrometer-classes-loaded";

    @SuppressWarnings("unchecked")
    private static List<String> loaded() {
        return (List<String>) System.getProperties().computeIfAbsent(LOADED, k -> new CopyOnWriteArrayList<String>());
    }

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .addClassLoaderEventListener(new ClassLoaderEventListener() {
                @Override
                public void loadClass(String className, String classLoaderName) {
                    if (className.startsWith("io.micrometer.") || className.equals("dev.ratelimit.runtime.metrics.MicrometerMetrics")) {
                        loaded().add(className + " (" + classLoaderName + ")");
                    }
                }
            })
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m");

    @Inject
    RateLimiter limiter;

    @Test
    void startsAndLimitsWithoutAnyMetricsClass() {
        assertTrue(limiter.checkBlocking("api", "a").allowed());
        assertTrue(limiter.checkBlocking("api", "a").allowed());
        assertFalse(limiter.checkBlocking("api", "a").allowed());
        assertFalse(Arc.container().select(RateLimitMetrics.class).isResolvable(), "no metrics bean");
        assertEquals(List.of(), loaded(), "classes loaded");
        RestAssured.get("/q/metrics").then().statusCode(404);
    }
}
