package dev.ratelimit.deployment.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;
import io.restassured.http.Header;

/**
 * The rate-limit headers go straight onto the HTTP response: each appears once, and where the resource set a header of
 * the same name the limiter's value replaces it rather than sitting beside it.
 */
class ResourceHeaderTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnHeaders.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m");

    @Path("/own-headers")
    public static class OwnHeaders {

        @GET
        @RateLimit("api")
        public Response get() {
            return Response.ok("ok").header("X-RateLimit-Limit", "999").header("x-ratelimit-remaining", "999")
                    .header("X-Other", "kept").build();
        }

        @GET
        @Path("/unlimited")
        public Response unlimited() {
            return Response.ok("ok").header("RateLimit", "\"upstream\";r=7;t=1").build();
        }
    }

    @Test
    void theLimitersHeadersReplaceTheResourcesAndAppearOnce() {
        var response = RestAssured.get("/own-headers").then().statusCode(200).extract();
        List<Header> limit = response.headers().getList("X-RateLimit-Limit");
        assertEquals(List.of("5"), limit.stream().map(Header::getValue).toList());
        assertEquals(List.of("4"), response.headers().getList("X-RateLimit-Remaining").stream().map(Header::getValue).toList());
        assertEquals(1, response.headers().getList("RateLimit-Policy").size());
        assertEquals(1, response.headers().getList("RateLimit").size());
        assertEquals("kept", response.header("X-Other"));
    }

    @Test
    void aResponseTheLimiterDidNotDecideKeepsTheResourcesOwnHeader() {
        var response = RestAssured.get("/own-headers/unlimited").then().statusCode(200).extract();
        assertEquals(List.of("\"upstream\";r=7;t=1"),
                response.headers().getList("RateLimit").stream().map(Header::getValue).toList());
        assertEquals(null, response.header("RateLimit-Policy"));
    }
}
