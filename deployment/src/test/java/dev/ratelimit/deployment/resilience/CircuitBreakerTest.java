package dev.ratelimit.deployment.resilience;

import static dev.ratelimit.runtime.resilience.CircuitBreaker.PERMITTED;
import static dev.ratelimit.runtime.resilience.CircuitBreaker.PROBE;
import static dev.ratelimit.runtime.resilience.CircuitBreaker.REJECTED;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.resilience.CircuitBreaker;
import dev.ratelimit.runtime.resilience.CircuitBreaker.State;

/**
 * The breaker on its own, with a clock the test moves: opens after the threshold, refuses while open, lets exactly
 * one probe through when half-open, closes on its success and re-opens on its failure.
 */
class CircuitBreakerTest {

    private static final IOException DOWN = new IOException("connection refused");

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final CircuitBreaker breaker = new CircuitBreaker("redis", 3, Duration.ofSeconds(5), Duration.ofMillis(250),
            clock::get);

    private void advance(Duration d) {
        clock.addAndGet(d.toNanos());
    }

    private void fail(int times) {
        for (int i = 0; i < times; i++) {
            breaker.onFailure(breaker.acquire(), DOWN);
        }
    }

    @Test
    void opensAfterThresholdConsecutiveFailures() {
        fail(2);
        assertEquals(State.CLOSED, breaker.state());
        assertEquals(PERMITTED, breaker.acquire());
        fail(1);
        assertEquals(State.OPEN, breaker.state());
        assertEquals(REJECTED, breaker.acquire());
        advance(Duration.ofMillis(4999));
        assertEquals(REJECTED, breaker.acquire(), "still within the open duration");
    }

    @Test
    void aSuccessResetsTheCount() {
        fail(2);
        advance(Duration.ofSeconds(1));
        breaker.onSuccess(breaker.acquire());
        advance(Duration.ofSeconds(1));
        fail(2);
        assertEquals(State.CLOSED, breaker.state(), "2 + 2 failures are not 3 consecutive ones");
        fail(1);
        assertEquals(State.OPEN, breaker.state());
    }

    @Test
    void doesNotOpenWhileSomeCallsSucceed() {
        // a partial outage (one cluster primary down): failures interleaved with recent successes
        for (int i = 0; i < 20; i++) {
            breaker.onSuccess(breaker.acquire());
            advance(Duration.ofMillis(10));
            fail(5);
        }
        assertEquals(State.CLOSED, breaker.state());
        // once nothing has succeeded for longer than the quiet period, the next failures open it
        advance(Duration.ofMillis(300));
        fail(1);
        assertEquals(State.OPEN, breaker.state());
    }

    @Test
    void halfOpenLetsOneProbeThroughAndClosesOnItsSuccess() {
        fail(3);
        advance(Duration.ofSeconds(5));
        assertEquals(PROBE, breaker.acquire());
        assertEquals(State.HALF_OPEN, breaker.state());
        assertEquals(REJECTED, breaker.acquire(), "only one probe at a time");
        assertEquals(REJECTED, breaker.acquire());
        breaker.onSuccess(PROBE);
        assertEquals(State.CLOSED, breaker.state());
        assertEquals(PERMITTED, breaker.acquire());
    }

    @Test
    void aFailedProbeOpensAgainForAnotherPeriod() {
        fail(3);
        advance(Duration.ofSeconds(5));
        int probe = breaker.acquire();
        assertEquals(PROBE, probe);
        breaker.onFailure(probe, DOWN);
        assertEquals(State.OPEN, breaker.state());
        advance(Duration.ofSeconds(4));
        assertEquals(REJECTED, breaker.acquire());
        advance(Duration.ofSeconds(1));
        assertEquals(PROBE, breaker.acquire());
        breaker.onSuccess(PROBE);
        assertEquals(State.CLOSED, breaker.state());
    }

    @Test
    void aSuccessOfACallStartedBeforeOpeningDoesNotClose() {
        int early = breaker.acquire();
        fail(3);
        breaker.onSuccess(early);
        assertEquals(State.OPEN, breaker.state(), "only the probe decides");
    }

    @Test
    void aLostProbeDoesNotWedgeTheBreaker() {
        fail(3);
        advance(Duration.ofSeconds(5));
        assertEquals(PROBE, breaker.acquire()); // its caller goes away: no outcome is ever reported
        advance(Duration.ofSeconds(4));
        assertEquals(REJECTED, breaker.acquire());
        advance(Duration.ofSeconds(1));
        assertEquals(PROBE, breaker.acquire(), "another probe after one more open duration");
    }

    @Test
    void concurrentCallersGetExactlyOneProbe() throws Exception {
        fail(3);
        advance(Duration.ofSeconds(5));
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger probes = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        for (int t = 0; t < threads; t++) {
            pool.execute(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 1000; i++) {
                    int p = breaker.acquire();
                    (p == PROBE ? probes : rejected).incrementAndGet();
                }
            });
        }
        start.countDown();
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        assertEquals(1, probes.get());
        assertEquals(threads * 1000 - 1, rejected.get());
    }
}
