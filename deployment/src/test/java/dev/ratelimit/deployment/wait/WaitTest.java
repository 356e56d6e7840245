package dev.ratelimit.deployment.wait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.test.redis.RedisFixture;
import io.quarkus.test.QuarkusUnitTest;
import io.restassured.RestAssured;
import io.smallrye.mutiny.Uni;

/**
 * {@code max-wait} on a real Redis: a call the policy denies waits for admission, on a timer, instead of failing; the
 * calls admitted never run ahead of the policy; a wait the denial says is too long is not waited; over HTTP, from a
 * {@code Uni} and from a plain method on a worker thread.
 */
class WaitTest {

    private static final String P = "quarkus.ratelimit.policies.";

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Partner.class, Api.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.redis.hosts", RedisFixture.shared().uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.key-prefix", "wait-" + System.nanoTime())
            // a partner's API allowing 10 a second
            .overrideConfigKey(P + "partner.limit", "10")
            .overrideConfigKey(P + "partner.window", "1s")
            .overrideConfigKey(P + "partner.key", "global")
            .overrideConfigKey(P + "partner.max-wait", "5s")
            .overrideConfigKey(P + "outbound.limit", "2")
            .overrideConfigKey(P + "outbound.window", "1s")
            .overrideConfigKey(P + "outbound.key", "global")
            .overrideConfigKey(P + "outbound.max-wait", "5s")
            .overrideConfigKey(P + "pages.limit", "2")
            .overrideConfigKey(P + "pages.window", "1s")
            .overrideConfigKey(P + "pages.key", "global")
            .overrideConfigKey(P + "pages.max-wait", "5s")
            .overrideConfigKey(P + "queue.limit", "10")
            .overrideConfigKey(P + "queue.window", "1s")
            .overrideConfigKey(P + "queue.key", "global")
            .overrideConfigKey(P + "queue.max-wait", "5s")
            .overrideConfigKey(P + "hourly.algorithm", "fixed-window")
            .overrideConfigKey(P + "hourly.limit", "1")
            .overrideConfigKey(P + "hourly.window", "1h")
            .overrideConfigKey(P + "hourly.max-wait", "200ms");

    @ApplicationScoped
    public static class Partner {
        @RateLimit("outbound")
        public String call() {
            return "ok";
        }
    }

    @Path("/waiting")
    public static class Api {
        @GET
        @RateLimit("pages")
        public String page() {
            return "ok";
        }
    }

    @Inject
    RateLimiter limiter;

    @Inject
    Partner partner;

    @Test
    void thirtyCallsAgainstTenASecondAllWaitTheirTurnAndNoneRunsAhead() {
        long start = System.nanoTime();
        List<Long> admittedAfterMs = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<RateLimitDecision>> calls = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            Uni<RateLimitDecision> call = limiter.check("partner", "p").invoke(d -> {
                if (d.allowed()) {
                    admittedAfterMs.add((System.nanoTime() - start) / 1_000_000);
                }
            });
            calls.add(call.subscribeAsCompletionStage());
        }
        for (CompletableFuture<RateLimitDecision> c : calls) {
            RateLimitDecision d = c.join();
            assertTrue(d.allowed(), () -> "every call waited its turn: " + d);
        }
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs >= 1_800 && tookMs < 4_500, () -> "20 calls beyond the burst at 10 a second: " + tookMs + " ms");
        List<Long> times = new ArrayList<>(admittedAfterMs);
        Collections.sort(times);
        for (int i = 10; i < times.size(); i++) {
            long earliest = (i - 10 + 1) * 100L - 20; // the bucket's refill, less the clocks' rounding
            long at = times.get(i);
            int n = i + 1;
            assertTrue(at >= earliest, () -> "admission " + n + " at " + at + " ms, before the policy allows (" + earliest
                    + " ms): " + times);
        }
    }

    @Test
    void waitersAreServedInTheOrderTheyCameEachAtItsTurn() throws Exception {
        long start = System.nanoTime();
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<Long> doneAfterMs = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<RateLimitDecision>> calls = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            int n = i;
            calls.add(limiter.check("queue", "q").invoke(d -> {
                order.add(n);
                doneAfterMs.add((System.nanoTime() - start) / 1_000_000);
            }).subscribeAsCompletionStage());
            Thread.sleep(3); // each reaches Redis before the next
        }
        for (int i = 0; i < calls.size(); i++) {
            RateLimitDecision d = calls.get(i).join();
            int n = i;
            assertTrue(d.allowed(), () -> "call " + n + " waited its turn: " + d);
            if (i >= 10) {
                // charged at once, its turn said by the decision: a unit (100 ms) after the one before
                assertTrue(d.binding().retryAfter().toMillis() > 0, () -> "call " + n + " took a turn: " + d);
            }
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            expected.add(i);
        }
        assertEquals(expected, order, "served in the order they came");
        List<Long> times = new ArrayList<>(doneAfterMs);
        for (int i = 10; i < times.size(); i++) {
            long earliest = (i - 10 + 1) * 100L - 20; // its turn, less the clocks' rounding
            long at = times.get(i);
            int n = i;
            assertTrue(at >= earliest, () -> "call " + n + " went on at " + at + " ms, before its turn (" + earliest
                    + " ms): " + times);
        }
    }

    @Test
    void aDenialLongerThanTheWaitAllowedIsNotWaited() {
        assertTrue(limiter.checkBlocking("hourly", "h").allowed());
        long start = System.nanoTime();
        RateLimitDecision d = limiter.checkBlocking("hourly", "h");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertFalse(d.allowed());
        assertTrue(tookMs < 150, () -> "denied at once, the hour's end being past max-wait: " + tookMs + " ms");
    }

    @Test
    void aPlainMethodWaitsOnItsWorkerThread() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try {
            long start = System.nanoTime();
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                results.add(pool.submit(partner::call));
            }
            for (Future<String> r : results) {
                assertEquals("ok", r.get(), "no RateLimitExceededException: each call waited");
            }
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(tookMs >= 1_300, () -> "3 calls beyond a burst of 2 at 2 a second: " + tookMs + " ms");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void httpRequestsWaitToo() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            long start = System.nanoTime();
            List<Future<Integer>> statuses = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                statuses.add(pool.submit(() -> RestAssured.get("/waiting").statusCode()));
            }
            for (Future<Integer> s : statuses) {
                assertEquals(200, s.get(), "the request waited instead of a 429");
            }
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(tookMs >= 800, () -> "2 requests beyond a burst of 2 at 2 a second: " + tookMs + " ms");
        } finally {
            pool.shutdownNow();
        }
    }
}
