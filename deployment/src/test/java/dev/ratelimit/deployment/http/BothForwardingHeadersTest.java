package dev.ratelimit.deployment.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * Both {@code allow-forwarded} and {@code allow-x-forwarded}: the header
 * {@code forwarded-precedence} names ({@code forwarded} by default) is read when the request has it,
 * else the other one, as Quarkus does.
 */
class BothForwardingHeadersTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.http.proxy.proxy-address-forwarding", "true")
            .overrideConfigKey("quarkus.http.proxy.allow-forwarded", "true")
            .overrideConfigKey("quarkus.http.proxy.allow-x-forwarded", "true")
            .overrideConfigKey("quarkus.http.proxy.trusted-proxies", "127.0.0.1")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "3")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m");

    @Path("/limited")
    public static class Limited {

        @GET
        @RateLimit("api")
        public String get() {
            return "ok";
        }
    }

    static Response get(String forwarded, String xForwardedFor) {
        RequestSpecification request = RestAssured.given();
        if (forwarded != null) {
            request.header("Forwarded", forwarded);
        }
        if (xForwardedFor != null) {
            request.header("X-Forwarded-For", xForwardedFor);
        }
        return request.get("/limited");
    }

    @Test
    void forwardedComesFirstAndXForwardedForCountsWithoutIt() {
        // the leftmost values agree, so Quarkus's strict forwarded control lets the requests through
        for (int i = 1; i <= 3; i++) {
            Response r = get("for=198.51.100.9, for=198.51.100.2", "198.51.100.9, 198.51.100.1");
            assertEquals(200, r.statusCode());
            assertEquals(String.valueOf(3 - i), r.header("X-RateLimit-Remaining"));
        }
        assertEquals(429, get("for=198.51.100.2", null).statusCode(), "the budget spent was Forwarded's client's");
        Response x = get(null, "198.51.100.1");
        assertEquals(200, x.statusCode(), "X-Forwarded-For's client was not charged");
        assertEquals("2", x.header("X-RateLimit-Remaining"));
    }
}
