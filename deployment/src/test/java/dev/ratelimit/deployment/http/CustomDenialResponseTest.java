package dev.ratelimit.deployment.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitResponder;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;

/**
 * The application's {@link RateLimitResponder} shapes every denied HTTP request, the filter's and a limited bean's
 * inside a REST call: its status, body, content type and headers of its own; the limiter still adds
 * {@code Retry-After} (replacing one it set) and the rate-limit headers. Answering {@code null} keeps the default
 * problem detail; a responder that throws is logged and the default answers.
 */
class CustomDenialResponseTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ApiErrors.class, Api.class, Inner.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey(P + "api.limit", "1")
            .overrideConfigKey(P + "api.window", "1h")
            .overrideConfigKey(P + "api.key", "header:X-Client")
            .overrideConfigKey(P + "inner.limit", "1")
            .overrideConfigKey(P + "inner.window", "1h")
            .overrideConfigKey(P + "inner.key", "global")
            .overrideConfigKey(P + "plain.limit", "1")
            .overrideConfigKey(P + "plain.window", "1h")
            .overrideConfigKey(P + "plain.key", "header:X-Client")
            .overrideConfigKey(P + "broken.limit", "1")
            .overrideConfigKey(P + "broken.window", "1h")
            .overrideConfigKey(P + "broken.key", "header:X-Client");

    @ApplicationScoped
    public static class ApiErrors implements RateLimitResponder {
        @Override
        public Response denied(RateLimitDecision decision, int status) {
            String policy = decision.binding().policy();
            if (policy.equals("plain")) {
                return null; // the default
            }
            if (policy.equals("broken")) {
                throw new IllegalStateException("a bug in the application's responder");
            }
            return Response.status(status).type(MediaType.APPLICATION_JSON)
                    .header("X-Support", "https://support.example.com/rate-limits")
                    .header("Retry-After", "999") // the limiter's replaces it
                    .entity("{\"error\":{\"code\":\"RATE_LIMITED\",\"policy\":\"" + policy + "\",\"retryIn\":"
                            + decision.retryAfterSeconds() + "}}")
                    .build();
        }
    }

    @ApplicationScoped
    public static class Inner {
        @RateLimit("inner")
        public String work() {
            return "done";
        }
    }

    @Path("/shaped")
    public static class Api {
        @Inject
        Inner inner;

        @GET
        @Path("api")
        @RateLimit("api")
        public String api() {
            return "ok";
        }

        @GET
        @Path("inner")
        public String viaBean() {
            return inner.work();
        }

        @GET
        @Path("plain")
        @RateLimit("plain")
        public String plain() {
            return "ok";
        }

        @GET
        @Path("broken")
        @RateLimit("broken")
        public String broken() {
            return "ok";
        }
    }

    private static io.restassured.response.Response get(String path, String client) {
        return RestAssured.given().header("X-Client", client).get(path);
    }

    @Test
    void theFiltersDenialIsTheApplicationsWithTheLimitersHeaders() {
        String client = UUID.randomUUID().toString();
        assertEquals(200, get("/shaped/api", client).statusCode());
        var denied = get("/shaped/api", client);
        assertEquals(429, denied.statusCode());
        assertTrue(denied.contentType().startsWith("application/json"), denied.contentType());
        assertTrue(denied.asString().startsWith("{\"error\":{\"code\":\"RATE_LIMITED\",\"policy\":\"api\""),
                denied.asString());
        assertEquals("https://support.example.com/rate-limits", denied.header("X-Support"));
        long retry = Long.parseLong(denied.header("Retry-After"));
        assertTrue(retry > 3000 && retry <= 3600, "the limiter's Retry-After, not the responder's: " + retry);
        assertNotNull(denied.header("RateLimit"));
        assertNotNull(denied.header("RateLimit-Policy"));
        assertEquals("0", denied.header("X-RateLimit-Remaining"));
    }

    @Test
    void aLimitedBeansDenialInsideARestCallIsShapedToo() {
        get("/shaped/inner", "x"); // the one call of the hour, or spent by an earlier run of this method
        var denied = get("/shaped/inner", "x");
        assertEquals(429, denied.statusCode());
        assertTrue(denied.asString().contains("\"policy\":\"inner\""), denied.asString());
        assertNotNull(denied.header("Retry-After"));
        assertNotNull(denied.header("RateLimit"));
    }

    @Test
    void nullKeepsTheDefaultAndAFailingResponderFallsBackToIt() {
        String client = UUID.randomUUID().toString();
        assertEquals(200, get("/shaped/plain", client).statusCode());
        var plain = get("/shaped/plain", client);
        assertEquals(429, plain.statusCode());
        assertTrue(plain.contentType().startsWith("application/problem+json"), plain.contentType());
        assertEquals(200, get("/shaped/broken", client).statusCode());
        var broken = get("/shaped/broken", client);
        assertEquals(429, broken.statusCode(), "a bug in the responder is no 500");
        assertTrue(broken.contentType().startsWith("application/problem+json"), broken.contentType());
        assertNotNull(broken.header("Retry-After"));
    }
}
