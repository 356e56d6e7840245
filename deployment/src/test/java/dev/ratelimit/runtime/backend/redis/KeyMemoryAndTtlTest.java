package dev.ratelimit.runtime.backend.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.algorithm.Engine;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.test.redis.RedisFixture;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;

/**
 * What a key costs in Redis: for each algorithm (limit 100 per minute, real clock) keys are created by realistic
 * traffic, and {@code MEMORY USAGE} (exact, {@code SAMPLES 0}) is reported per key. Every key must carry a TTL of
 * at most one window (two for the counter, which needs the previous window), and the sliding log must hold at
 * most {@code limit} entries after 3x the limit in attempts.
 */
public class KeyMemoryAndTtlTest {

    private static final Logger LOG = Logger.getLogger(KeyMemoryAndTtlTest.class);

    private static final int LIMIT = 100;
    private static final Duration WINDOW = Duration.ofMinutes(1);
    private static final int KEYS_PER_ALGORITHM = 3;
    /** The target for the small-state algorithms (token bucket, GCRA) with a typical key. */
    private static final long SMALL_KEY_TARGET = 80;

    @RegisterExtension
    static final QuarkusUnitTest TEST = Engine.onSharedRedis();

    @Inject
    DefaultRateLimiter limiter;

    @Test
    void everyKeyHasABoundedTtlAndMeasuredSize() {
        Random random = new Random(3);
        Map<Algorithm, long[]> table = new LinkedHashMap<>(); // {min, max, average bytes, max entries/len}
        String sampleKey = null;
        try (RespClient redis = RedisFixture.shared().client()) {
            for (Algorithm a : Algorithm.values()) {
                Policy p = Engine.policy("api", a, LIMIT, WINDOW, LIMIT);
                long windowMs = WINDOW.toMillis();
                long maxTtl = a == Algorithm.SLIDING_WINDOW_COUNTER ? 2 * windowMs : windowMs;
                List<Long> sizes = new ArrayList<>();
                long maxEntries = 0;
                for (int k = 0; k < KEYS_PER_ALGORITHM; k++) {
                    // a realistic key: default prefix, a client address as identity, a short policy name
                    // a realistic key: default prefix, a client address as identity, a short policy name; deleted
                    // first, since each algorithm reuses the addresses
                    String key = RedisKeys.key("rl", "api", "198.51.100." + (k + 1));
                    sampleKey = key;
                    redis.call("DEL", key);
                    // one log key is driven to 3x its limit (it must stay at the limit); the others get a random
                    // share of it, like every other key
                    boolean flood = a == Algorithm.SLIDING_WINDOW_LOG && k == 0;
                    int attempts = flood ? 3 * LIMIT : 1 + random.nextInt(LIMIT);
                    for (int i = 0; i < attempts; i++) {
                        limiter.backend().decide(new Policy[] { p }, new String[] { key }, new long[] { 1 },
                                RateLimitBackend.BACKEND_CLOCK, false, "lease" + i).await().atMost(Duration.ofSeconds(10));
                    }
                    long ttl = redis.callLong("PTTL", key);
                    String k2 = key;
                    assertTrue(ttl > 0 && ttl <= maxTtl, () -> a.configName() + " key " + k2 + " PTTL " + ttl
                            + " ms, expected within (0, " + maxTtl + "]");
                    sizes.add(redis.callLong("MEMORY", "USAGE", key, "SAMPLES", "0"));
                    if (a == Algorithm.SLIDING_WINDOW_LOG || a == Algorithm.CONCURRENCY) {
                        // one member per admitted unit: a logged request, or a slot held (none released here)
                        long entries = redis.callLong("ZCARD", key);
                        assertTrue(entries <= LIMIT, () -> "the log holds " + entries + " entries, more than the limit");
                        if (flood) {
                            assertEquals(LIMIT, entries, "after 3x the limit in attempts the log is full, not over");
                        } else {
                            assertEquals(attempts, entries, "only admitted requests are logged");
                        }
                        maxEntries = Math.max(maxEntries, entries);
                    } else {
                        maxEntries = Math.max(maxEntries, redis.callLong("STRLEN", key));
                    }
                }
                long min = sizes.stream().mapToLong(Long::longValue).min().orElseThrow();
                long max = sizes.stream().mapToLong(Long::longValue).max().orElseThrow();
                long avg = Math.round(sizes.stream().mapToLong(Long::longValue).average().orElseThrow());
                table.put(a, new long[] { min, max, avg, maxEntries });
            }
        }
        StringBuilder report = new StringBuilder(String.format(
                "%nRedis memory per key (MEMORY USAGE), limit %d per %s, key like '%s' (%d chars):%n", LIMIT, WINDOW, sampleKey,
                sampleKey.length()));
        report.append(String.format("  %-24s %8s %8s %8s  %s%n", "algorithm", "min B", "max B", "avg B",
                "value bytes / log entries (max)"));
        table.forEach((a, v) -> report.append(String.format("  %-24s %8d %8d %8d  %d%n", a.configName(), v[0], v[1],
                v[2], v[3])));
        LOG.info(report);
        System.out.println(report);
        // the bucket algorithms keep one small value: GCRA one number, token and leaky buckets two packed doubles
        for (Algorithm a : new Algorithm[] { Algorithm.GCRA, Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET }) {
            assertTrue(table.get(a)[1] <= SMALL_KEY_TARGET, a.configName() + " key over target:" + report);
        }
    }
}
