package dev.ratelimit.deployment.config;

import static io.restassured.RestAssured.given;

import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.test.redis.RedisFixture;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Every spelling SmallRye Config accepts for a policy's properties works at build time (the annotation finds its
 * policy, the cost is checked against its capacity) and at start-up (the limit is the one configured): quoted and
 * plain names, names with dots (quoted), one policy spelled both ways, and the active profile's {@code %test.}
 * properties. A quoted name used to fail the build with "Policy 'x' has no limit". Environment variables and
 * {@code .env} are covered by the packaged application's test ({@code ConfigFromEnvironmentIT}).
 */
class PolicyNameSpellingsTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "spellings-" + System.nanoTime())
            .overrideConfigKey(P + "\"quoted\".limit", "2")
            .overrideConfigKey(P + "\"quoted\".window", "1m")
            .overrideConfigKey(P + "\"with.dots\".limit", "2")
            .overrideConfigKey(P + "\"with.dots\".window", "1m")
            .overrideConfigKey(P + "\"with.dots\".algorithm", "fixed-window")
            .overrideConfigKey(P + "mixed.limit", "2")
            .overrideConfigKey(P + "\"mixed\".window", "1m")
            .overrideConfigKey("%test." + P + "profiled.limit", "2")
            .overrideConfigKey("%test." + P + "profiled.window", "1m")
            .overrideConfigKey("%prod." + P + "profiled.limit", "1000");

    @Path("/spelled")
    public static class Limited {
        @GET
        @Path("quoted")
        @RateLimit(value = "quoted", cost = 2)
        public String quoted() {
            return "ok";
        }

        @GET
        @Path("dots")
        @RateLimit("with.dots")
        public String dots() {
            return "ok";
        }

        @GET
        @Path("mixed")
        @RateLimit("mixed")
        public String mixed() {
            return "ok";
        }

        @GET
        @Path("profiled")
        @RateLimit("profiled")
        public String profiled() {
            return "ok";
        }
    }

    @Test
    void quotedNameAdmitsItsLimit() {
        given().get("/spelled/quoted").then().statusCode(200).header("X-RateLimit-Limit", "2");
        given().get("/spelled/quoted").then().statusCode(429);
    }

    @Test
    void nameWithDotsAdmitsItsLimit() throws InterruptedException {
        // with.dots is a fixed window (whole minutes of the Redis clock): keep the 3 requests inside one window
        try (RespClient redis = RedisFixture.shared().client()) {
            List<?> time = (List<?>) redis.call("TIME");
            long nowMs = Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
            long left = 60_000 - nowMs % 60_000;
            if (left < 3_000) {
                Thread.sleep(left + 20);
            }
        }
        expectLimitOfTwo("/spelled/dots");
    }

    @Test
    void oneNameSpelledBothWaysIsOnePolicy() {
        expectLimitOfTwo("/spelled/mixed");
    }

    @Test
    void activeProfileValuesCount() {
        expectLimitOfTwo("/spelled/profiled");
    }

    private static void expectLimitOfTwo(String path) {
        given().get(path).then().statusCode(200).header("X-RateLimit-Limit", "2");
        given().get(path).then().statusCode(200);
        given().get(path).then().statusCode(429);
    }
}
