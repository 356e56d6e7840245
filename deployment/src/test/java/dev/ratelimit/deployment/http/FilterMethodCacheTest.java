package dev.ratelimit.deployment.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.runtime.http.HttpLimits;
import io.quarkus.arc.Arc;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * The HTTP filter remembers each resource method's limits once: hundreds of requests to two overloads of one method
 * name (and to a method without limits) leave three entries, not one per request. Quarkus REST gives every request a
 * new resource-info object, so a cache keyed by that object grew by one entry per request.
 */
class FilterMethodCacheTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Overloads.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "1000")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.other.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.other.window", "1m");

    @Path("/overloads")
    public static class Overloads {

        @GET
        @Path("/plain")
        @RateLimit("api")
        public String hello() {
            return "plain";
        }

        @GET
        @Path("/named/{name}")
        @RateLimit("other")
        public String hello(@PathParam("name") String name) {
            return name;
        }

        @GET
        @Path("/free")
        public String free() {
            return "free";
        }
    }

    @Test
    void oneEntryPerResourceMethodWhateverTheRequests() throws Exception {
        for (int i = 0; i < 200; i++) {
            RestAssured.get("/overloads/plain").then().statusCode(200);
            RestAssured.get("/overloads/free").then().statusCode(200);
        }
        // each overload keeps its own limits: the second allows 2 per minute
        RestAssured.get("/overloads/named/a").then().statusCode(200);
        RestAssured.get("/overloads/named/a").then().statusCode(200);
        RestAssured.get("/overloads/named/a").then().statusCode(429);
        RestAssured.get("/overloads/plain").then().statusCode(200);

        int known = Arc.container().instance(HttpLimits.class).get().methods().resourceMethods();
        assertEquals(3, known, "resource methods the filter remembers after 404 requests");
    }
}
