package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.LogRecord;

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
import io.quarkus.test.QuarkusUnitTest;

/**
 * Kills the Redis server under 16 concurrent callers and starts it again, with one policy per failure mode: during
 * the outage {@code fail-open} admits everything, {@code fail-closed} denies everything and {@code local} enforces the
 * limits in process; no call errors or waits longer than the timeout (the circuit breaker answers at once); after the
 * restart (an empty script cache: NOSCRIPT) Redis decides again within seconds. The outage is logged once.
 */
class RedisOutageTest {

    private static final Logger LOG = Logger.getLogger(RedisOutageTest.class);

    static final RedisServerProcess REDIS = OwnRedis.of(RedisOutageTest.class);

    static final Duration TIMEOUT = Duration.ofMillis(200);
    static final String[] POLICIES = { "open", "closed", "local" };
    static final int LOCAL_LIMIT = 20;
    static final int KEYS = 4;
    static final int THREADS = 16;

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class, Load.class))
            .overrideConfigKey("quarkus.redis.hosts", REDIS.uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.ratelimit.redis.timeout", TIMEOUT.toMillis() + "ms")
            .overrideConfigKey("quarkus.ratelimit.circuit-breaker.failure-threshold", "5")
            .overrideConfigKey("quarkus.ratelimit.circuit-breaker.open-duration", "500ms")
            .overrideConfigKey("quarkus.ratelimit.fail-closed-status", "503")
            // this test is about the failure modes: Redis denials must not be answered from the cache
            .overrideConfigKey("quarkus.ratelimit.deny-cache.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.open.limit", "1000000")
            .overrideConfigKey("quarkus.ratelimit.policies.open.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.open.on-failure", "fail-open")
            .overrideConfigKey("quarkus.ratelimit.policies.closed.limit", "1000000")
            .overrideConfigKey("quarkus.ratelimit.policies.closed.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.closed.on-failure", "fail-closed")
            .overrideConfigKey("quarkus.ratelimit.policies.local.limit", Integer.toString(LOCAL_LIMIT))
            .overrideConfigKey("quarkus.ratelimit.policies.local.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.local.on-failure", "local")
            .setLogRecordPredicate(r -> r.getLoggerName().startsWith("dev.ratelimit.runtime"))
            .assertLogRecords(RedisOutageTest::outageLoggedOnce);

    @Inject
    DefaultRateLimiter limiter;

    @AfterAll
    static void stopRedis() {
        REDIS.stop();
    }

    /** Phases; a call that starts in one and ends in another (in flight at a kill or restart) counts as TRANSITION. */
    static final int HEALTHY = 0, OUTAGE = 1, RESTARTED = 2, TRANSITION = 3;

    /** Calls per phase, policy, source and outcome. */
    private final LongAdder[][][][] counts = new LongAdder[4][POLICIES.length][Source.values().length][2];
    private final AtomicLongArray maxLatencyNanos = new AtomicLongArray(4);
    /** Admitted by the local fallback, per key (its state lives as long as the application). */
    private final AtomicInteger[] localAdmitted = new AtomicInteger[KEYS];
    /** First Redis decision per policy after the restart (nanoTime), 0 until then. */
    private final AtomicLongArray firstRedisAfterRestart = new AtomicLongArray(POLICIES.length);
    private final AtomicLong breakerOpenSeen = new AtomicLong();
    private volatile int phase = HEALTHY;

    @Test
    void survivesTheOutageAndRecovers() throws Exception {
        for (LongAdder[][][] a : counts) {
            for (LongAdder[][] b : a) {
                for (LongAdder[] c : b) {
                    c[0] = new LongAdder();
                    c[1] = new LongAdder();
                }
            }
        }
        for (int k = 0; k < KEYS; k++) {
            localAdmitted[k] = new AtomicInteger();
        }
        Load load = Load.start("outage", THREADS, 500, (thread, i) -> {
            int policy = (thread + i) % POLICIES.length;
            int key = i % KEYS;
            int before = phase;
            long start = System.nanoTime();
            RateLimitDecision d = limiter.checkBlocking(POLICIES[policy], "k" + key, 1);
            long latency = System.nanoTime() - start;
            int p = phase == before ? before : TRANSITION;
            maxLatencyNanos.accumulateAndGet(p, latency, Math::max);
            counts[p][policy][d.source().ordinal()][d.allowed() ? 1 : 0].increment();
            if (d.source() == Source.LOCAL && d.allowed()) {
                localAdmitted[key].incrementAndGet();
            }
            if (p == RESTARTED && d.source() == Source.REDIS) {
                firstRedisAfterRestart.compareAndSet(policy, 0, System.nanoTime());
            }
            if (limiter.circuitBreaker().state() != CircuitBreaker.State.CLOSED) {
                breakerOpenSeen.incrementAndGet();
            }
        });
        Load.sleep(1000);
        phase = TRANSITION;
        REDIS.kill();
        phase = OUTAGE;
        Load.sleep(2000);
        phase = RESTARTED;
        REDIS.start(); // same port, empty: no data, no scripts
        long restarted = System.nanoTime();
        long deadline = restarted + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline && !allRecovered()) {
            Load.sleep(20);
        }
        Load.sleep(300);
        load.stop();

        assertTrue(load.errors().isEmpty(), () -> "calls failed: " + load.errors());
        long[] recoveryMs = new long[POLICIES.length];
        for (int p = 0; p < POLICIES.length; p++) {
            long first = firstRedisAfterRestart.get(p);
            assertTrue(first != 0, "policy " + POLICIES[p] + " never decided by Redis again after the restart");
            recoveryMs[p] = (first - restarted) / 1_000_000;
        }
        LOG.infof("Outage: max latency healthy %d ms, outage %d ms, after restart %d ms; Redis decisions again "
                + "%s ms after the restart; calls during the outage %s; local admitted per key %s",
                maxLatencyNanos.get(HEALTHY) / 1_000_000, maxLatencyNanos.get(OUTAGE) / 1_000_000,
                maxLatencyNanos.get(RESTARTED) / 1_000_000, java.util.Arrays.toString(recoveryMs),
                total(OUTAGE), java.util.Arrays.toString(localAdmitted));

        // healthy: Redis decides everything
        for (int p = 0; p < POLICIES.length; p++) {
            assertTrue(count(HEALTHY, p, Source.REDIS, true) > 0, POLICIES[p]);
            int policy = p;
            assertEquals(total(HEALTHY, p), count(HEALTHY, p, Source.REDIS, true) + count(HEALTHY, p, Source.REDIS, false),
                    () -> "only Redis decides while it is up: " + POLICIES[policy] + " " + breakdown(HEALTHY, policy));
        }
        // outage: each policy's failure mode, and nothing else
        long open = total(OUTAGE, 0);
        assertTrue(open > 100, "load during the outage on 'open': " + open);
        assertEquals(open, count(OUTAGE, 0, Source.FAILED_OPEN, true), "fail-open admits every call");
        long closed = total(OUTAGE, 1);
        assertTrue(closed > 100);
        assertEquals(closed, count(OUTAGE, 1, Source.FAILED_CLOSED, false), "fail-closed denies every call");
        long local = total(OUTAGE, 2);
        assertEquals(local, count(OUTAGE, 2, Source.LOCAL, true) + count(OUTAGE, 2, Source.LOCAL, false),
                "local decides every call");
        for (int k = 0; k < KEYS; k++) {
            int admitted = localAdmitted[k].get();
            assertTrue(admitted <= LOCAL_LIMIT, "key k" + k + ": the local limiter admitted " + admitted);
            assertEquals(LOCAL_LIMIT, admitted, "the load exhausts every key locally");
        }
        assertTrue(breakerOpenSeen.get() > 0, "the circuit breaker opened");
        // from the kill on, no call waits longer than the timeout, plus a margin for scheduling on a loaded 2-core
        // machine (the healthy phase is not bounded here: it includes the JIT's first calls)
        long bound = TIMEOUT.toMillis() + 150;
        for (int ph = OUTAGE; ph < 4; ph++) {
            long max = maxLatencyNanos.get(ph) / 1_000_000;
            assertTrue(max <= bound, "phase " + ph + ": a call took " + max + " ms, more than " + bound);
        }
        // recovery within seconds, through EVAL: the restarted server had neither the scripts nor their functions
        for (int p = 0; p < POLICIES.length; p++) {
            assertTrue(recoveryMs[p] < 3000, POLICIES[p] + " recovered after " + recoveryMs[p] + " ms");
        }
        assertTrue(count(RESTARTED, 0, Source.REDIS, true) > 0);
        assertTrue(OwnRedis.calls(REDIS, "eval") > 0, "EVAL on the restarted server");
        String noscript = OwnRedis.info(REDIS, "errorstats", "errorstat_NOSCRIPT");
        String notFound = OwnRedis.info(REDIS, "errorstats", "errorstat_ERR");
        assertTrue(noscript != null || notFound != null,
                "EVALSHA met NOSCRIPT, or FCALL found no function, on the restarted server");
        assertEquals(CircuitBreaker.State.CLOSED, limiter.circuitBreaker().state());

        // the 503 is opt-in, and only for fail-closed decisions
        RateLimitDecision failedClosed = null;
        REDIS.kill();
        try {
            for (int i = 0; i < 10 && failedClosed == null; i++) {
                RateLimitDecision d = limiter.checkBlocking("closed", "k0", 1);
                if (d.source() == Source.FAILED_CLOSED) {
                    failedClosed = d;
                }
            }
        } finally {
            REDIS.start();
        }
        assertNotNull(failedClosed);
        assertEquals(503, limiter.httpStatus(failedClosed));
        assertEquals(1, failedClosed.retryAfterSeconds());
    }

    private String breakdown(int phase, int policy) {
        StringBuilder sb = new StringBuilder();
        for (Source s : Source.values()) {
            for (int a = 0; a < 2; a++) {
                long n = counts[phase][policy][s.ordinal()][a].sum();
                if (n > 0) {
                    sb.append(s).append(a == 1 ? "/allowed=" : "/denied=").append(n).append(' ');
                }
            }
        }
        return sb.toString();
    }

    private boolean allRecovered() {
        for (int p = 0; p < POLICIES.length; p++) {
            if (firstRedisAfterRestart.get(p) == 0) {
                return false;
            }
        }
        return true;
    }

    private long count(int phase, int policy, Source source, boolean allowed) {
        return counts[phase][policy][source.ordinal()][allowed ? 1 : 0].sum();
    }

    private long total(int phase, int policy) {
        long n = 0;
        for (LongAdder[] bySource : counts[phase][policy]) {
            n += bySource[0].sum() + bySource[1].sum();
        }
        return n;
    }

    private String total(int phase) {
        StringBuilder sb = new StringBuilder();
        for (int p = 0; p < POLICIES.length; p++) {
            sb.append(POLICIES[p]).append('=').append(total(phase, p)).append(' ');
        }
        return sb.toString().trim();
    }

    /** One WARN when the breaker opens, one INFO when it closes: the outage is not logged per request. */
    static void outageLoggedOnce(List<LogRecord> records) {
        // JBoss LogManager has its own Level objects: compare by value
        long warns = records.stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue()).count();
        long opened = records.stream().filter(r -> r.getLevel().intValue() == Level.WARNING.intValue()
                && r.getLoggerName().endsWith("CircuitBreaker")).count();
        long closed = records.stream().filter(r -> r.getLevel().intValue() == Level.INFO.intValue()
                && r.getLoggerName().endsWith("CircuitBreaker")).count();
        String all = records.stream().map(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage())
                .collect(java.util.stream.Collectors.joining("\n"));
        assertEquals(1, opened, () -> "the outage is logged once, when the breaker opens:\n" + all);
        assertEquals(opened, warns, () -> "no other warning:\n" + all);
        assertEquals(1, closed, () -> "the recovery is logged once:\n" + all);
    }
}
