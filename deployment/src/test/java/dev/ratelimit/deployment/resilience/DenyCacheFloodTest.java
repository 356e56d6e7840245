package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A flood on one over-limit key: the deny cache answers it in process, cutting the Redis calls for it by more than
 * 90% (counted by Redis itself, {@code INFO commandstats}), while every unit that Redis refills is still admitted on
 * time: the cache never denies what Redis would admit.
 */
class DenyCacheFloodTest {

    private static final Logger LOG = Logger.getLogger(DenyCacheFloodTest.class);

    static final RedisServerProcess REDIS = OwnRedis.of(DenyCacheFloodTest.class);

    static final int BURST = 5;
    static final int THREADS = 8;
    static final long FLOOD_MS = 2500;

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OwnRedis.class, Load.class))
            .overrideConfigKey("quarkus.redis.hosts", REDIS.uri())
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            // 5 at once, then one more every second
            .overrideConfigKey("quarkus.ratelimit.policies.flood.algorithm", "token-bucket")
            .overrideConfigKey("quarkus.ratelimit.policies.flood.limit", Integer.toString(BURST))
            .overrideConfigKey("quarkus.ratelimit.policies.flood.window", BURST + "s")
            .overrideConfigKey("quarkus.ratelimit.policies.other.limit", "1000")
            .overrideConfigKey("quarkus.ratelimit.policies.other.window", "1m")
            .overrideConfigKey("quarkus.ratelimit.policies.slow.limit", "1")
            .overrideConfigKey("quarkus.ratelimit.policies.slow.window", "2s");

    @Inject
    DefaultRateLimiter limiter;

    @AfterAll
    static void stopRedis() {
        REDIS.stop();
    }

    @Test
    void aFloodOnADeniedKeyIsAnsweredLocally() throws Exception {
        LongAdder requests = new LongAdder();
        LongAdder admitted = new LongAdder();
        LongAdder admittedNotByRedis = new LongAdder();
        LongAdder cached = new LongAdder();
        AtomicLong firstCall = new AtomicLong();
        long callsBefore = OwnRedis.scriptCalls(REDIS);
        Load load = Load.start("flood", THREADS, 100, (thread, i) -> {
            firstCall.compareAndSet(0, System.nanoTime());
            RateLimitDecision d = limiter.checkBlocking("flood", "victim", 1);
            requests.increment();
            if (d.allowed()) {
                admitted.increment();
                if (d.source() != Source.REDIS) {
                    admittedNotByRedis.increment();
                }
            } else if (d.source() == Source.DENY_CACHE) {
                cached.increment();
                assertTrue(d.retryAfter().compareTo(Duration.ZERO) > 0, "a cached denial says when to retry");
            }
        });
        Load.sleep(FLOOD_MS);
        load.stop();
        long elapsedMs = (System.nanoTime() - firstCall.get()) / 1_000_000;
        long redisCalls = OwnRedis.scriptCalls(REDIS) - callsBefore;
        double reduction = 100.0 * (1 - (double) redisCalls / requests.sum());
        LOG.infof("Deny cache: %d requests in %d ms, %d Redis script calls (%.2f%% fewer than without the cache), "
                + "%d admitted, %d answered from the cache", requests.sum(), elapsedMs, redisCalls, reduction,
                admitted.sum(), cached.sum());

        assertTrue(load.errors().isEmpty(), () -> "calls failed: " + load.errors());
        assertTrue(requests.sum() > 1000, "a flood: " + requests.sum());
        assertTrue(reduction >= 90, "Redis calls cut by " + reduction + "% only");
        assertEquals(0, admittedNotByRedis.sum(), "only Redis admits");
        // Redis refills one unit a second: the burst, plus one per elapsed second. The cache must not hide any of
        // those units (one may still be on its way when the flood stops), and Redis never admits more.
        long earned = BURST + elapsedMs / 1000;
        assertTrue(admitted.sum() >= earned - 1 && admitted.sum() <= earned + 1,
                "admitted " + admitted.sum() + " during " + elapsedMs + " ms; Redis would admit " + earned);

        // a request with several policies: the first is answered by Redis (nothing is known yet of 'other', and a
        // cached answer must carry every policy's fields); its repeats are denied without Redis, reporting both
        List<RateLimitCheck> both = List.of(RateLimitCheck.of("other", "victim"), RateLimitCheck.of("flood", "victim"));
        RateLimitDecision first = limiter.checkBlocking(both);
        assertFalse(first.allowed());
        assertEquals(Source.REDIS, first.source());
        long before = OwnRedis.scriptCalls(REDIS);
        RateLimitDecision multi = limiter.checkBlocking(both);
        assertFalse(multi.allowed());
        assertEquals(Source.DENY_CACHE, multi.source());
        assertEquals("flood", multi.policy());
        assertEquals(2, multi.policies().size(), "every policy of the request is reported");
        assertEquals(first.policies().get(0).remaining(), multi.policies().get(0).remaining(), "other: as Redis said");
        assertEquals(before, OwnRedis.scriptCalls(REDIS), "no Redis call");
    }

    @Test
    void aCachedDenialEndsWhenRedisWouldAdmitAgain() {
        assertTrue(limiter.checkBlocking("slow", "probe", 1).allowed());
        long sent = System.nanoTime();
        RateLimitDecision denied = limiter.checkBlocking("slow", "probe", 1);
        assertFalse(denied.allowed());
        assertEquals(Source.REDIS, denied.source());
        long retryNanos = denied.retryAfter().toNanos();
        assertTrue(retryNanos > Duration.ofMillis(1500).toNanos(), "one unit per 2 s: " + denied.retryAfter());

        RateLimitDecision again = limiter.checkBlocking("slow", "probe", 1);
        assertEquals(Source.DENY_CACHE, again.source());
        assertTrue(again.retryAfter().compareTo(denied.retryAfter()) <= 0);

        sleepUntil(sent + retryNanos - Duration.ofMillis(150).toNanos());
        assertFalse(limiter.checkBlocking("slow", "probe", 1).allowed(), "still too early, for the cache and for Redis");

        sleepUntil(sent + retryNanos + Duration.ofMillis(20).toNanos());
        RateLimitDecision after = limiter.checkBlocking("slow", "probe", 1);
        assertTrue(after.allowed(), "the unit is back: the cache must have let the request through to Redis");
        assertEquals(Source.REDIS, after.source());
    }

    private static void sleepUntil(long nanoTime) {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            Load.sleep(left / 1_000_000 + 1);
        }
    }
}
