package dev.ratelimit.deployment.health;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/** {@code quarkus.ratelimit.health.enabled=false} leaves the check out. */
class HealthDisabledTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.backend", "local")
            .overrideConfigKey("quarkus.ratelimit.health.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "10")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m");

    @Test
    void noRateLimiterCheck() {
        given().get("/q/health/ready").then().statusCode(200).body(not(containsString("Rate limiter")));
    }
}
