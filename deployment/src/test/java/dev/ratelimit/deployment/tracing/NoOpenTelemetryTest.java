package dev.ratelimit.deployment.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.runtime.tracing.RateLimitTracing;
import io.quarkus.arc.Arc;
import io.quarkus.bootstrap.classloading.ClassLoaderEventListener;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * Without quarkus-opentelemetry (the OpenTelemetry API and SDK are on this module's test class path, for the other
 * tracing tests, but the extension is not in this application) the application starts and limits over HTTP, no tracing
 * bean is registered, and neither the extension's OpenTelemetry class nor any OpenTelemetry class is ever loaded.
 */
class NoOpenTelemetryTest {

    /*
     * The listener runs in JUnit's class loader, the test in the application's: a JDK list kept in the system
     * properties is the one object both see.
     */
    private static final String LOADED = "ratelimit.test.tracing.opentelemetry-classes-loaded";

    @SuppressWarnings("unchecked")
    private static List<String> loaded() {
        return (List<String>) System.getProperties().computeIfAbsent(LOADED, k -> new CopyOnWriteArrayList<String>());
    }

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Resource.class))
            .addClassLoaderEventListener(new ClassLoaderEventListener() {
                @Override
                public void loadClass(String className, String classLoaderName) {
                    if (className.startsWith("io.opentelemetry.")
                            || className.equals("dev.ratelimit.runtime.tracing.OpenTelemetryTracing")) {
                        loaded().add(className + " (" + classLoaderName + ")");
                    }
                }
            })
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m");

    @Path("/plain")
    public static class Resource {
        @GET
        @RateLimit("api")
        public String get() {
            return "ok";
        }
    }

    @Test
    void limitsWithoutAnyOpenTelemetryClass() {
        RestAssured.get("/plain").then().statusCode(200);
        RestAssured.get("/plain").then().statusCode(429);
        assertFalse(Arc.container().select(RateLimitTracing.class).isResolvable(), "no tracing bean");
        assertEquals(List.of(), loaded(), "classes loaded");
    }
}
