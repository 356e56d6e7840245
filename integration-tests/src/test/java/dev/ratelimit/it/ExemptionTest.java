package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;

/**
 * The demo's {@code MonitoringExemption}: the probe's requests (its token in {@code X-Monitoring-Token}) are never
 * counted by {@code public} and carry none of its headers, however many; a wrong token is counted as any client.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class ExemptionTest {

    @Test
    void theProbeIsNeverCountedAndOthersAre() {
        // more than the policy's 10 per 10 s, all admitted
        for (int i = 0; i < 25; i++) {
            Response r = RestAssured.given().header("X-Monitoring-Token", "probe-7f3a").get("/public/status");
            assertEquals(200, r.statusCode());
            assertNull(r.header("RateLimit"), "an exempt request carries no rate-limit headers");
        }
        Response counted = RestAssured.given().header("X-Monitoring-Token", "guess").get("/public/status");
        assertNotNull(counted.header("RateLimit"), "a wrong token is counted");
        assertNotNull(counted.header("RateLimit-Policy"));
    }
}
