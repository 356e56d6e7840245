package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.UUID;

import org.junit.jupiter.api.Test;

/**
 * A partner's limit raised through one instance of the packaged application is applied by the other at its next
 * request, on one real redis-server: no cache to wait out, although that instance had just denied the partner (a
 * denial it would otherwise hold for the 12 s its Retry-After said); cleared through the other, the policy's 5 apply
 * again on both.
 */
class OverridesAcrossInstancesProcessIT extends TwoInstances {

    private HttpResponse<String> quote(AppProcess app, String apiKey) throws IOException, InterruptedException {
        return send("GET", app.url("/partner"), "X-Api-Key", apiKey);
    }

    private HttpResponse<String> console(AppProcess app, String method, String apiKey, String query)
            throws IOException, InterruptedException {
        return send(method, app.url("/admin/partners/" + apiKey + "/override" + query), "Authorization",
                basic("ops", "ops-secret"));
    }

    @Test
    void aLimitRaisedOnOneInstanceAppliesOnTheOtherAtItsNextRequest() throws Exception {
        String partner = "p-" + UUID.randomUUID();
        AppProcess a = apps.get(0);
        AppProcess b = apps.get(1);
        for (int i = 0; i < 5; i++) {
            assertEquals(200, quote(i % 2 == 0 ? a : b, partner).statusCode());
        }
        HttpResponse<String> denied = quote(b, partner);
        assertEquals(429, denied.statusCode());
        assertTrue(Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow()) >= 10);
        assertEquals(204, console(a, "PUT", partner, "?limit=6000").statusCode());
        // 100 a second from now on: b admits within a fraction of a second, not after the 12 s it had said
        long started = System.nanoTime();
        HttpResponse<String> r = quote(b, partner);
        while (r.statusCode() == 429 && System.nanoTime() - started < 3_000_000_000L) {
            Thread.sleep(20);
            r = quote(b, partner);
        }
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertEquals(200, r.statusCode(), "b applies the override");
        assertTrue(tookMs < 1_000, () -> "b applied it after " + tookMs + " ms");
        assertEquals("6000", r.headers().firstValue("X-RateLimit-Limit").orElseThrow());
        assertEquals(200, console(b, "GET", partner, "").statusCode(), "b reads what a set");
        assertEquals(204, console(b, "DELETE", partner, "").statusCode());
        for (AppProcess app : apps) {
            assertEquals("5", quote(app, partner).headers().firstValue("X-RateLimit-Limit").orElseThrow());
        }
    }
}
