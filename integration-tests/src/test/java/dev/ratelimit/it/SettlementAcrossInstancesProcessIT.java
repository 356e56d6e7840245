package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Reservations settled concurrently on one key from two instances of the packaged application on one real
 * redis-server: 40 completions of one tenant, half on each instance, all at once, each reserving 1,000 tokens and
 * settling the 100 it used. Every settlement must count: afterwards the tenant has its burst of 5,000 less 4,000 used
 * (plus what refilled meanwhile at 10,000 an hour), which a lost or doubled refund would move by 900 or more.
 */
class SettlementAcrossInstancesProcessIT extends TwoInstances {

    private static final Pattern REMAINING = Pattern.compile("\"llm-tokens\";r=(\\d+);");
    private CompletableFuture<HttpResponse<String>> complete(AppProcess app, String tenant, long tokens) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(app.url("/api/complete?tokens=" + tokens)))
                .header("X-Tenant", tenant).POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10))
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void everySettlementCountsOnce() throws Exception {
        String tenant = "t-" + UUID.randomUUID();
        long started = System.nanoTime();
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            calls.add(complete(apps.get(i % 2), tenant, 100));
        }
        int admitted = 0;
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            admitted += c.get().statusCode() == 200 ? 1 : 0;
        }
        // at once, at most 5 reservations of 1,000 fit; those denied used nothing
        assertTrue(admitted >= 5, "admitted: " + admitted);
        // the settlements follow the responses, and an instance holds a denial of a settled policy a second at most
        Thread.sleep(1_500);
        HttpResponse<String> last = complete(apps.get(0), tenant, 0).get();
        assertEquals(200, last.statusCode(), last.headers().toString());
        Matcher m = REMAINING.matcher(last.headers().firstValue("RateLimit").orElseThrow());
        assertTrue(m.find(), last.headers().toString());
        long remaining = Long.parseLong(m.group(1));
        long seconds = (System.nanoTime() - started) / 1_000_000_000 + 1;
        int admittedCalls = admitted;
        long expected = 5000 - 100L * admittedCalls - 1000; // the last call's reservation is still charged in its header
        assertTrue(remaining >= expected && remaining <= expected + 3 * seconds + 3,
                () -> "remaining " + remaining + " after 40 calls (" + admittedCalls + " admitted), expected about "
                        + expected);
    }
}
