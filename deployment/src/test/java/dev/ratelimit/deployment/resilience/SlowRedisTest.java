package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.resilience.CircuitBreaker;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A Redis that answers nothing for 3 s ({@code CLIENT PAUSE}): calls end at the timeout, not when Redis wakes up; the
 * circuit breaker then answers at once, so only a handful of calls ever pay the timeout; Redis decides again soon
 * after the pause.
 */
class SlowRedisTest {

    private static final Logger LOG = Logger.getLogger(SlowRedisTest.class);

    static final RedisServerProcess REDIS = OwnRedis.of(SlowRedisTest.class);

    static final Duration TIMEOUT = Duration.ofMillis(200);
    static final long PAUSE_MS = 3000;
    static final int THREADS = 8;

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class, Load.class))
            .overrideConfigKey("quarkus.redis.hosts", REDIS.uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.redis.timeout", TIMEOUT.toMillis() + "ms")
            .overrideConfigKey("quarkus.ratelimit.circuit-breaker.failure-threshold", "3")
            .overrideConfigKey("quarkus.ratelimit.circuit-breaker.open-duration", "500ms")
            .overrideConfigKey("quarkus.ratelimit.on-failure", "fail-open")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "1000000")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1h");

    @Inject
    DefaultRateLimiter limiter;

    @AfterAll
    static void stopRedis() {
        REDIS.stop();
    }

    @Test
    void aPausedRedisCostsTheTimeoutOnlyUntilTheBreakerOpens() throws Exception {
        AtomicLong maxLatency = new AtomicLong();
        LongAdder slow = new LongAdder();
        LongAdder duringPause = new LongAdder();
        LongAdder redisDuringPause = new LongAdder();
        AtomicLong firstRedisAfterPause = new AtomicLong();
        AtomicLong breakerOpenSeen = new AtomicLong();
        AtomicLong pause = new AtomicLong(); // when CLIENT PAUSE was sent (nanoTime), 0 until then
        Load load = Load.start("slow", THREADS, 500, (thread, i) -> {
            long start = System.nanoTime();
            RateLimitDecision d = limiter.checkBlocking("api", "user" + (i % 16), 1);
            long end = System.nanoTime();
            long latency = end - start;
            long pausedAt = pause.get();
            if (pausedAt != 0 && start >= pausedAt) {
                maxLatency.accumulateAndGet(latency, Math::max);
            }
            if (latency >= TIMEOUT.toNanos() * 9 / 10) {
                slow.increment();
            }
            // calls entirely inside the pause (with 50 ms of slack at each end)
            if (pausedAt != 0 && start > pausedAt + 50_000_000L && end < pausedAt + (PAUSE_MS - 50) * 1_000_000L) {
                duringPause.increment();
                if (d.source() == Source.REDIS) {
                    redisDuringPause.increment();
                }
            }
            if (pausedAt != 0 && start > pausedAt + PAUSE_MS * 1_000_000L && d.source() == Source.REDIS) {
                firstRedisAfterPause.compareAndSet(0, end);
            }
            if (limiter.circuitBreaker().state() != CircuitBreaker.State.CLOSED) {
                breakerOpenSeen.incrementAndGet();
            }
        });
        Load.sleep(500);
        try (RespClient client = REDIS.client()) {
            pause.set(System.nanoTime());
            assertEquals("OK", client.callString("CLIENT", "PAUSE", Long.toString(PAUSE_MS)));
        }
        long deadline = pause.get() + Duration.ofMillis(PAUSE_MS + 5000).toNanos();
        while (firstRedisAfterPause.get() == 0 && System.nanoTime() < deadline) {
            Load.sleep(20);
        }
        load.stop();

        assertTrue(load.errors().isEmpty(), () -> "calls failed: " + load.errors());
        long recoveryMs = firstRedisAfterPause.get() == 0 ? -1
                : (firstRedisAfterPause.get() - pause.get()) / 1_000_000 - PAUSE_MS;
        LOG.infof("Paused Redis: max latency from the pause on %d ms, %d calls paid the timeout, %d calls inside the pause, Redis "
                + "decisions again %d ms after the pause ended", maxLatency.get() / 1_000_000, slow.sum(),
                duringPause.sum(), recoveryMs);
        // the timeout, a check's tick, and the checks a stalled process defers (see CallTimeouts.PAUSE_NANOS: on a
        // loaded 2-core host a call took 364 ms once): far below the 3 s a call waiting for Redis would take
        assertTrue(maxLatency.get() / 1_000_000 <= TIMEOUT.toMillis() + 300,
                "a call took " + maxLatency.get() / 1_000_000 + " ms: the timeout did not bound it");
        assertEquals(0, redisDuringPause.sum(), "Redis cannot have answered while paused");
        assertTrue(duringPause.sum() > 500, "the callers kept going during the pause: " + duringPause.sum());
        assertTrue(breakerOpenSeen.get() > 0, "the circuit breaker opened");
        // without the breaker every call of the pause would have waited the timeout; with it: the first calls of
        // each thread, then one probe per open duration
        long bound = THREADS * 2 + PAUSE_MS / 500 + 5;
        assertTrue(slow.sum() <= bound, slow.sum() + " calls paid the timeout, more than " + bound);
        assertTrue(recoveryMs >= 0 && recoveryMs < 2000, "Redis decisions again " + recoveryMs + " ms after the pause");
    }
}
