package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

/**
 * {@code max-wait} across two instances of the packaged application on one real redis-server: 30 concurrent calls of
 * the partner's quote feed (10 a second for both instances together), half through each, all succeed, in about 2 s,
 * and none completes ahead of what the policy allows (10 at once, then one every 100 ms).
 */
class WaitAcrossInstancesProcessIT extends TwoInstances {

    @Test
    void thirtyCallsAgainstTenASecondAcrossTwoInstancesAllWaitTheirTurn() throws Exception {
        long start = System.nanoTime();
        List<Long> doneAfterMs = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            AppProcess app = apps.get(i % 2);
            HttpRequest request = HttpRequest.newBuilder(URI.create(app.url("/api/quotes-feed/Q" + i)))
                    .timeout(Duration.ofSeconds(20)).build();
            calls.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((r, f) -> doneAfterMs
                    .add((System.nanoTime() - start) / 1_000_000)));
        }
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            HttpResponse<String> r = c.get();
            assertEquals(200, r.statusCode(), () -> "every call waited its turn: " + r.headers());
        }
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs >= 1_800 && tookMs < 6_000, () -> "20 calls beyond the burst at 10 a second: " + tookMs + " ms");
        List<Long> times = new ArrayList<>(doneAfterMs);
        Collections.sort(times);
        for (int i = 10; i < times.size(); i++) {
            long earliest = (i - 10 + 1) * 100L - 20;
            long at = times.get(i);
            int n = i + 1;
            assertTrue(at >= earliest, () -> "call " + n + " done at " + at + " ms, before the policy allows: " + times);
        }
    }
}
