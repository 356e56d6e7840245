package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

/**
 * {@code max-wait} across two instances of the packaged application on one real redis-server: 30 concurrent calls of
 * the partner's quote feed (10 a second for both instances together, a token bucket), sent 20 ms apart through the two
 * instances in turn, all succeed in about 2 s: the first 10 at once, then each waiter at its turn, a unit (100 ms)
 * after the one before, in the order they came whichever instance they went through, none ahead of what the policy
 * allows.
 */
class WaitAcrossInstancesProcessIT extends TwoInstances {

    @Test
    void thirtyCallsAgainstTenASecondAcrossTwoInstancesAreServedInOrderEachAtItsTurn() throws Exception {
        // the client's connections opened and each instance's path warmed first, so that the calls reach Redis in the
        // order they are sent; then the bucket is given the time to fill again
        List<CompletableFuture<HttpResponse<String>>> warm = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            warm.add(http.sendAsync(HttpRequest.newBuilder(URI.create(apps.get(i % 2).url("/q/health/live"))).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> w : warm) {
            w.get();
        }
        for (AppProcess app : apps) {
            http.send(HttpRequest.newBuilder(URI.create(app.url("/api/quotes-feed/warm"))).build(),
                    HttpResponse.BodyHandlers.ofString());
        }
        Thread.sleep(400);
        long start = System.nanoTime();
        long[] doneAfterMs = new long[30];
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            AppProcess app = apps.get(i % 2);
            HttpRequest request = HttpRequest.newBuilder(URI.create(app.url("/api/quotes-feed/Q" + i)))
                    .timeout(Duration.ofSeconds(20)).build();
            int n = i;
            calls.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                    .whenComplete((r, f) -> doneAfterMs[n] = (System.nanoTime() - start) / 1_000_000));
            Thread.sleep(20); // each reaches Redis before the next
        }
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            HttpResponse<String> r = c.get();
            assertEquals(200, r.statusCode(), () -> "every call waited its turn: " + r.headers());
        }
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs >= 1_800 && tookMs < 4_000, () -> "20 calls beyond the burst at 10 a second: " + tookMs + " ms");
        String times = java.util.Arrays.toString(doneAfterMs);
        for (int i = 10; i < 30; i++) {
            long earliest = (i - 10 + 1) * 100L - 20; // its turn, less the clocks' rounding
            long at = doneAfterMs[i];
            int n = i;
            assertTrue(at >= earliest, () -> "call " + n + " done at " + at + " ms, before its turn: " + times);
            if (i < 12) {
                continue; // the first waiters: their turns may come as soon as the burst's last replies
            }
            // served in the order they reached Redis, which the client sees only through two instances' dispatch:
            // two calls sent 20 ms apart may swap there, none sent 40 ms or more apart (each turn is 100 ms)
            long before = doneAfterMs[i - 2];
            assertTrue(at > before, () -> "call " + n + " done at " + at + " ms, not after call " + (n - 2) + " ("
                    + before + " ms): served out of order: " + times);
        }
    }
}
