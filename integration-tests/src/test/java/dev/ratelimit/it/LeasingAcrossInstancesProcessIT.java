package dev.ratelimit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

/**
 * Quota leasing ({@code lease=auto}) across two instances of the packaged application on one real redis-server, both
 * leasing slices of the same global keys at once: the fixed window ({@code catalog}, 600 an hour) admits at most 600
 * of 1,000 calls spread over both (the bound of a window algorithm is zero), and exactly 600 once the slices' unused
 * units are given back; the bucket ({@code feed}, 300,
 * refilling 300 an hour) admits its burst, with what refilled, and no more; and an instance that stops gives back
 * what its slice did not use, so the other gets it.
 */
class LeasingAcrossInstancesProcessIT extends TwoInstances {

    private int status(AppProcess app, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(app.url(path))).timeout(Duration.ofSeconds(10)).build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** {@code calls} calls of {@code path}, 4 threads per instance at once; returns how many were admitted. */
    private int hammer(List<AppProcess> on, String path, int calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4 * on.size());
        try {
            List<Future<Integer>> admitted = new ArrayList<>();
            int perThread = calls / (4 * on.size());
            for (int t = 0; t < 4 * on.size(); t++) {
                AppProcess app = on.get(t % on.size());
                Callable<Integer> c = () -> {
                    int ok = 0;
                    for (int i = 0; i < perThread; i++) {
                        int s = status(app, path);
                        assertTrue(s == 200 || s == 429, "status " + s);
                        ok += s == 200 ? 1 : 0;
                    }
                    return ok;
                };
                admitted.add(pool.submit(c));
            }
            int sum = 0;
            for (Future<Integer> f : admitted) {
                sum += f.get();
            }
            return sum;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void twoLeasingInstancesStayWithinTheBoundAndAStoppedOneGivesItsSliceBack() throws Exception {
        long started = System.nanoTime();
        int first = hammer(apps, "/api/catalog", 1_000);
        // never more than the limit; less while one instance holds units of a slice the other's calls cannot use
        assertTrue(first <= 600 && first > 600 - 2 * 60, () -> "a window policy admits at most its limit: " + first);
        Thread.sleep(400); // the slices end (100 ms) and the sweep gives back what they did not use
        // one caller on one instance uses its own slice before Redis denies it: every unit given back is admitted
        int second = hammer(List.of(apps.get(0)), "/api/catalog", 4 * 100);
        assertEquals(600, first + second, "exactly the limit once the slices are given back");

        // feed: one instance takes 100 on its own, leasing, then stops: what its slice did not use goes back
        AppProcess a = apps.get(0);
        AppProcess b = apps.get(1);
        int byA = hammer(List.of(a), "/api/feed", 100);
        assertEquals(100, byA);
        a.close();
        int byB = hammer(List.of(b), "/api/feed", 400);
        long seconds = (System.nanoTime() - started) / 1_000_000_000 + 1;
        // 300 at once, plus 300 an hour refilled (one every 12 s) since the first call; had the stopped instance kept
        // its unused units, the other would have got fewer
        int total = byA + byB;
        assertTrue(total >= 300 && total <= 300 + seconds / 12 + 1,
                () -> "admitted " + total + " of the bucket's 300 in " + seconds + " s");
    }
}
