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

/**
 * {@code proxy-address-forwarding} without {@code trusted-proxies}: Quarkus takes forwarding headers
 * from every peer, and no hop inside them is trusted, so the client is the rightmost element (what
 * the proxy in front appended), not the leftmost (what the client wrote). A client reaching the
 * service directly still picks its own key, which the start-up log says once (WARN).
 */
class ForwardingWithoutTrustedProxiesTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.http.proxy.proxy-address-forwarding", "true")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "3")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m")
            // a client connecting directly could write its own key: said once, at start-up
            .setLogRecordPredicate(r -> r.getLoggerName().startsWith("dev.ratelimit"))
            .assertLogRecords(records -> org.junit.jupiter.api.Assertions.assertEquals(1, records.stream()
                    .filter(r -> r.getLevel().intValue() == java.util.logging.Level.WARNING.intValue())
                    .filter(r -> String.valueOf(r.getMessage()).contains("without quarkus.http.proxy.trusted-proxies"))
                    .count(), "one start-up warning about forwarding without trusted proxies"));

    @Path("/limited")
    public static class Limited {

        @GET
        @RateLimit("api")
        public String get() {
            return "ok";
        }
    }

    static Response get(String xForwardedFor) {
        return RestAssured.given().header("X-Forwarded-For", xForwardedFor).get("/limited");
    }

    static String remaining(Response r) {
        return r.header("X-RateLimit-Remaining");
    }

    @Test
    void theRightmostElementIsTheClient() {
        for (int i = 1; i <= 3; i++) {
            Response r = get("203.0.113." + i + ", 198.51.100.1");
            assertEquals(200, r.statusCode());
            assertEquals(String.valueOf(3 - i), remaining(r), "every spoofed leftmost value draws on 198.51.100.1's budget");
        }
        assertEquals(429, get("203.0.113.4, 198.51.100.1").statusCode());
        Response other = get("198.51.100.1, 198.51.100.2");
        assertEquals(200, other.statusCode(), "198.51.100.2 is another client");
        assertEquals("2", remaining(other));
    }
}
