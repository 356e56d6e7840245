package dev.ratelimit.deployment.http;

import static io.restassured.RestAssured.given;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/**
 * Quarkus REST answers a {@code HEAD} by running the {@code GET} method, so a path policy limited to {@code GET}
 * counts it: {@code HEAD} was a way around {@code methods=GET} (found while testing path spellings).
 */
class HeadCountsAsGetTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Report.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.policies.reports.paths", "/report")
            .overrideConfigKey("quarkus.ratelimit.policies.reports.methods", "GET")
            .overrideConfigKey("quarkus.ratelimit.policies.reports.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.reports.window", "1m");

    @Path("/report")
    public static class Report {
        @GET
        public String report() {
            return "expensive";
        }
    }

    @Test
    void headRequestsCountAgainstAGetPolicy() {
        given().head("/report").then().statusCode(200).header("X-RateLimit-Remaining", "1");
        given().head("/report").then().statusCode(200);
        given().get("/report").then().statusCode(429);
        given().head("/report").then().statusCode(429);
    }
}
