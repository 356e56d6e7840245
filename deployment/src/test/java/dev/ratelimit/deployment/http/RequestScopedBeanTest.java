package dev.ratelimit.deployment.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.runtime.http.HttpLimits;
import io.quarkus.arc.Arc;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * A limited method of a request-scoped bean: a new bean instance (and a new interceptor instance) per request, one
 * limit across them, and the method's limits resolved once for the application rather than once per instance.
 */
class RequestScopedBeanTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Quota.class, QuotaResource.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.other.limit", "3")
            .overrideConfigKey("quarkus.ratelimit.policies.other.window", "1m");

    @RequestScoped
    public static class Quota {

        @RateLimit("other")
        public String take() {
            return "taken";
        }
    }

    @Path("/quota")
    public static class QuotaResource {

        @Inject
        Quota quota;

        @GET
        public String get() {
            return quota.take();
        }
    }

    @Test
    void oneLimitAcrossInstancesAndOneResolutionPerMethod() throws Exception {
        for (int i = 0; i < 3; i++) {
            RestAssured.get("/quota").then().statusCode(200);
        }
        RestAssured.get("/quota").then().statusCode(429).header("Retry-After", org.hamcrest.Matchers.notNullValue());

        int methods = Arc.container().instance(HttpLimits.class).get().methods().interceptedMethods();
        assertEquals(1, methods, "methods resolved after 4 requests, each with its own bean instance");
    }
}
