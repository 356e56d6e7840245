package dev.ratelimit.deployment.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.resilience.DenyCache;

/**
 * The deny cache on its own, with a clock the test moves: which requests a cached denial covers, when it expires,
 * that changed policy values miss it, and that its memory stays bounded.
 */
class DenyCacheTest {

    private static final String KEY = "rl:{alice}:api";
    private static final Policy API = policy("api", 10, false);

    private final AtomicLong clock = new AtomicLong(5_000_000_000L);
    private final DenyCache cache = new DenyCache(100, Duration.ofMillis(5), clock::get);

    private static Policy policy(String name, long limit, boolean shadow) {
        return new Policy(name, Algorithm.TOKEN_BUCKET, limit, Duration.ofMinutes(1), limit, "ip", shadow,
                FailureMode.LOCAL);
    }

    /** A reply of the scripts denying one policy: retry after {@code retryMs}, {@code remaining} left. */
    private static BackendReply denied(long remaining, long retryMs) {
        return BackendReply.builder(1).denied().policy(0, false, remaining, retryMs, retryMs).build();
    }

    private List<PolicyDecision> lookup(Policy p, String key, long cost) {
        return cache.lookup(new Policy[] { p }, new String[] { key }, new long[] { cost });
    }

    private void remember(Policy p, String key, long cost, BackendReply reply, long sentAt) {
        cache.remember(new Policy[] { p }, new String[] { key }, new long[] { cost }, reply, sentAt);
    }

    private void advance(Duration d) {
        clock.addAndGet(d.toNanos());
    }

    @Test
    void coversTheSameCostAndLargerOnesOnly() {
        remember(API, KEY, 3, denied(2, 6000), clock.get());
        List<PolicyDecision> hit = lookup(API, KEY, 3);
        assertNotNull(hit);
        assertFalse(hit.get(0).allowed());
        assertEquals(2, hit.get(0).remaining());
        assertNotNull(lookup(API, KEY, 7), "a larger cost needs at least as long");
        assertNull(lookup(API, KEY, 2), "a smaller cost may fit in what is left: Redis must decide");
        assertNull(lookup(API, "rl:{bob}:api", 3), "another key");
    }

    @Test
    void expiresBeforeTheTimeRedisReportedCountedFromTheSend() {
        long sentAt = clock.get();
        advance(Duration.ofMillis(40)); // the reply arrives 40 ms after the call left
        remember(API, KEY, 1, denied(0, 1000), sentAt);
        // margin: 5 ms + 0.1% of 1000 ms = 6 ms; expiry = sentAt + 994 ms
        advance(Duration.ofMillis(953));
        List<PolicyDecision> hit = lookup(API, KEY, 1);
        assertNotNull(hit);
        // what a client is told is Redis's answer counted from its arrival (S + 40 + 1000), as without the cache
        assertEquals(Duration.ofMillis(47), hit.get(0).retryAfter());
        advance(Duration.ofMillis(1));
        assertNull(lookup(API, KEY, 1), "never later than sentAt + T - margin");
        assertEquals(0, cache.size(), "an expired entry is dropped when read");
    }

    /**
     * Units given back end a denial early: a policy reserved through this instance has its denials held a second at
     * most, so a refund made through another instance is not hidden for the whole wait Redis reported (a tenant was
     * denied for 6 minutes after every settlement had come back, in SettlementAcrossInstancesProcessIT).
     */
    @Test
    void aSettledPolicysDenialIsHeldASecondAtMost() {
        remember(API, KEY, 1000, denied(0, 360_000), clock.get());
        advance(Duration.ofSeconds(2));
        assertNotNull(lookup(API, KEY, 1000), "a policy nobody settles: the whole wait");
        cache.clear();
        cache.settles(API.name());
        remember(API, KEY, 1000, denied(0, 360_000), clock.get());
        advance(Duration.ofMillis(900));
        assertNotNull(lookup(API, KEY, 1000));
        advance(Duration.ofMillis(200));
        assertNull(lookup(API, KEY, 1000), "held a second at most: Redis decides again");
    }

    @Test
    void changedPolicyValuesMissTheEntry() {
        remember(API, KEY, 1, denied(0, 60_000), clock.get());
        assertNotNull(lookup(API, KEY, 1));
        assertNull(lookup(policy("api", 20, false), KEY, 1), "same name, higher limit: Redis must decide");
        Policy longerWindow = new Policy("api", Algorithm.TOKEN_BUCKET, 10, Duration.ofMinutes(2), 10, "ip", false,
                FailureMode.LOCAL);
        assertNull(lookup(longerWindow, KEY, 1));
        Policy otherAlgorithm = new Policy("api", Algorithm.GCRA, 10, Duration.ofMinutes(1), 10, "ip", false,
                FailureMode.LOCAL);
        assertNull(lookup(otherAlgorithm, KEY, 1));
    }

    @Test
    void shadowPoliciesAndAdmittedRepliesAreNeverCached() {
        Policy shadow = policy("dark", 10, true);
        remember(shadow, "rl:{alice}:dark", 1, denied(0, 60_000), clock.get());
        assertNull(lookup(shadow, "rl:{alice}:dark", 1));
        remember(API, KEY, 1, BackendReply.builder(1).policy(0, true, 5, 0, 6000).build(), clock.get());
        assertNull(lookup(API, KEY, 1));
        assertEquals(0, cache.size());
    }

    @Test
    void aMultiPolicyRequestIsCoveredWhenOneOfItsChecksIs() {
        Policy writes = policy("writes", 5, false);
        // Redis denied 'writes' and admitted 'api' in one request
        cache.remember(new Policy[] { API, writes }, new String[] { KEY, "rl:{alice}:writes" }, new long[] { 1, 2 },
                BackendReply.builder(2).denied().policy(0, true, 9, 0, 100).policy(1, false, 1, 12_000, 12_000).build(), clock.get());
        List<PolicyDecision> hit = cache.lookup(new Policy[] { API, writes },
                new String[] { KEY, "rl:{alice}:writes" }, new long[] { 1, 2 });
        assertNotNull(hit);
        // the cached answer reports every policy of the request, as Redis did
        assertEquals(2, hit.size());
        assertEquals("api", hit.get(0).policy());
        assertTrue(hit.get(0).allowed());
        assertEquals(9, hit.get(0).remaining());
        assertEquals("writes", hit.get(1).policy());
        assertFalse(hit.get(1).allowed());
        assertNull(lookup(API, KEY, 1), "api admitted it: a request for api alone is not covered");
        assertNull(cache.lookup(new Policy[] { writes, policy("other", 5, false) },
                new String[] { "rl:{alice}:writes", "rl:{alice}:other" }, new long[] { 2, 1 }),
                "nothing known of 'other': Redis answers for the whole request");
    }

    @Test
    void memoryIsBounded() {
        for (int i = 0; i < 1000; i++) {
            remember(API, "rl:{user" + i + "}:api", 1, denied(0, 1000 + i), clock.get());
            assertTrue(cache.size() <= 100, () -> "size " + cache.size());
        }
        // the latest entries (farthest expiry) survive, the ones closest to expiry were dropped
        assertNotNull(lookup(API, "rl:{user999}:api", 1));
        assertNull(lookup(API, "rl:{user0}:api", 1));
    }

    @Test
    void memoryIsBoundedWithMultiPolicyDenials() {
        Policy writes = policy("writes", 5, false);
        remember(API, KEY, 1, denied(0, 60_000), clock.get()); // one entry more: the cache fills on a report
        for (int i = 0; i < 1000; i++) {
            // Redis denied 'writes' and admitted 'api': the denial and what it said of 'api' are both kept
            cache.remember(new Policy[] { API, writes }, new String[] { "rl:{user" + i + "}:api", "rl:{user" + i + "}:writes" },
                    new long[] { 1, 1 }, BackendReply.builder(2).denied().policy(0, true, 9, 0, 100).policy(1, false, 0, 1000 + i, 1000 + i)
                            .build(), clock.get());
            assertTrue(cache.size() <= 100, () -> "size " + cache.size());
            // the request just denied is answered in process, for both of its policies, full cache or not
            List<PolicyDecision> hit = cache.lookup(new Policy[] { API, writes },
                    new String[] { "rl:{user" + i + "}:api", "rl:{user" + i + "}:writes" }, new long[] { 1, 1 });
            assertNotNull(hit, "request " + i);
            assertEquals(2, hit.size());
        }
    }

    @Test
    void expiredEntriesMakeRoomFirst() {
        for (int i = 0; i < 100; i++) {
            remember(API, "rl:{user" + i + "}:api", 1, denied(0, 1000), clock.get());
        }
        assertEquals(100, cache.size());
        advance(Duration.ofSeconds(2));
        remember(API, "rl:{late}:api", 1, denied(0, 1000), clock.get());
        assertEquals(1, cache.size());
        assertNotNull(lookup(API, "rl:{late}:api", 1));
    }
}
