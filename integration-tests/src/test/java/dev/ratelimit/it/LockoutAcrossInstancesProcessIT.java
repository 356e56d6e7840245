package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.UUID;

import org.junit.jupiter.api.Test;

/**
 * A lock-out ({@code block-for}) and its reset across two instances of the packaged application on one real
 * redis-server: attempts spread over both count once, the lock-out one instance set is seen by the other at its next
 * request, and a reset made through one instance is seen by the other within a second (its deny cache holds such
 * denials no longer).
 */
class LockoutAcrossInstancesProcessIT extends TwoInstances {

    private HttpResponse<String> pin(AppProcess app, String method, String device)
            throws IOException, InterruptedException {
        return send(method, app.url("/api/pin"), "X-Device", device);
    }

    @Test
    void aLockOutSetOnOneInstanceHoldsOnTheOtherUntilReset() throws Exception {
        String device = "phone-" + UUID.randomUUID();
        AppProcess a = apps.get(0);
        AppProcess b = apps.get(1);
        // pin is a fixed window: the four attempts must land in one 10 s window, or the fourth opens a new one
        awaitWindowRoom(10_000, 4_000);
        // 3 attempts per 10 s across both instances: the fourth, on either, locks the device out
        assertEquals(200, pin(a, "GET", device).statusCode());
        assertEquals(200, pin(b, "GET", device).statusCode());
        assertEquals(200, pin(a, "GET", device).statusCode());
        HttpResponse<String> locking = pin(b, "GET", device);
        assertEquals(429, locking.statusCode());
        long retry = Long.parseLong(locking.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(retry > 50 && retry <= 60, () -> "locked out for the minute: " + retry);
        // instance a never saw that denial: Redis tells it
        HttpResponse<String> seen = pin(a, "GET", device);
        assertEquals(429, seen.statusCode());
        assertTrue(Long.parseLong(seen.headers().firstValue("Retry-After").orElseThrow()) > 50);
        // reset through b; a holds its cached denial a second at most
        assertEquals(200, pin(b, "DELETE", device).statusCode());
        assertEquals(200, pin(b, "GET", device).statusCode(), "the instance that reset admits at once");
        Thread.sleep(1_200);
        assertEquals(200, pin(a, "GET", device).statusCode(), "the other instance admits within a second");
    }
}
