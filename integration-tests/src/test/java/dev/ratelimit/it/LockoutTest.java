package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.ratelimit.test.redis.RedisTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;

/**
 * The demo's PIN check ({@code pin}: 3 per 10 s per device, {@code block-for=1m}): the fourth attempt locks the device
 * out for the minute, past the window (a {@code Retry-After} no window of 10 s could give), other devices go on, and
 * the support endpoint lifts it.
 */
@QuarkusTest
@QuarkusTestResource(RedisTestResource.class)
class LockoutTest {

    private static Response attempt(String device) {
        return RestAssured.given().header("X-Device", device).get("/api/pin");
    }

    @Test
    void theFourthAttemptLocksTheDeviceOutForAMinute() throws InterruptedException {
        // pin is a fixed window: the four attempts must land in one 10 s window, or the fourth opens a new one
        RedisState.awaitWindowStart(10_000, 3_000);
        String device = "phone-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            assertEquals(200, attempt(device).statusCode());
        }
        for (int i = 0; i < 3; i++) {
            Response r = attempt(device);
            assertEquals(429, r.statusCode());
            long retry = Long.parseLong(r.header("Retry-After"));
            assertTrue(retry > 50 && retry <= 60, () -> "the lock-out, not the 10 s window: " + retry);
        }
        assertEquals(200, attempt("tablet-" + device).statusCode(), "another device is not locked out");
        assertEquals("unlocked", RestAssured.given().header("X-Device", device).delete("/api/pin").then()
                .statusCode(200).extract().asString());
        assertEquals(200, attempt(device).statusCode(), "support lifted the lock-out");
    }
}
