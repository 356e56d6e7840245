package dev.ratelimit.it;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/** The application has SmallRye Health: its readiness lists the rate limiter's check, UP, with Redis reachable. */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class ReadinessTest {

    @Test
    void theRateLimiterIsReadyAndSaysWhy() {
        given().get("/q/health/ready").then().statusCode(200)
                .body("checks.name", hasItem("Rate limiter"))
                .body("checks.find { it.name == 'Rate limiter' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'Rate limiter' }.data.backend", equalTo("redis"))
                .body("checks.find { it.name == 'Rate limiter' }.data.redis", equalTo("reachable"))
                .body("checks.find { it.name == 'Rate limiter' }.data.circuit-breaker", equalTo("closed"));
    }
}
