package dev.ratelimit.runtime.algorithm;

import static dev.ratelimit.runtime.algorithm.Engine.BASE;
import static dev.ratelimit.runtime.algorithm.Engine.S;
import static dev.ratelimit.runtime.algorithm.Engine.admitted;
import static dev.ratelimit.runtime.algorithm.Engine.all;
import static dev.ratelimit.runtime.algorithm.Engine.remaining;
import static dev.ratelimit.runtime.algorithm.Engine.resetMs;
import static dev.ratelimit.runtime.algorithm.Engine.retryMs;
import static dev.ratelimit.runtime.algorithm.Engine.show;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.test.redis.RedisFixture;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The {@code concurrency} algorithm: at most {@code limit} units in flight per key, a slot held from the charge to its
 * release, or until {@code window} after it was taken when nobody releases it (its instance died). Every call with an
 * explicit time is made on Redis (the extension's backend) and in process, which must reply the same, number for
 * number; then the limiter's own path: a decision's {@code release()}, and many threads sharing one key.
 */
class ConcurrencyScenariosTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = Engine.onSharedRedis()
            .overrideConfigKey("quarkus.ratelimit.policies.in-flight.algorithm", "concurrency")
            .overrideConfigKey("quarkus.ratelimit.policies.in-flight.limit", "3")
            .overrideConfigKey("quarkus.ratelimit.policies.in-flight.window", "1m");

    @Inject
    DefaultRateLimiter limiter;

    /** Three in flight; a slot held for at most a minute. */
    private static final Policy THREE = Engine.policy("three", Algorithm.CONCURRENCY, 3, Duration.ofMinutes(1), 3);
    private static final long T0 = BASE + 7 * S;

    private final LocalBackend local = new LocalBackend();

    private long[] call(Policy p, String key, long cost, long now, String lease) {
        return call(new Policy[] { p }, new String[] { key }, new long[] { cost }, now, false, lease);
    }

    private long[] call(Policy[] ps, String[] keys, long[] costs, long now, boolean dry, String lease) {
        long[] redis = limiter.backend().decide(ps, keys, costs, now, dry, lease).await().atMost(Duration.ofSeconds(10))
                .toScriptOrder();
        long[] inProcess = local.decideNow(ps, keys, costs, now, dry, lease).toScriptOrder();
        assertArrayEquals(redis, inProcess, () -> "redis " + show(redis) + " vs in process " + show(inProcess));
        return redis;
    }

    private void release(Policy p, String key, long cost, String lease) {
        release(new Policy[] { p }, new String[] { key }, new long[] { cost }, lease);
    }

    private void release(Policy[] ps, String[] keys, long[] costs, String lease) {
        limiter.backend().release(ps, keys, costs, lease).await().atMost(Duration.ofSeconds(10));
        local.releaseNow(ps, keys, lease);
    }

    private static String key() {
        return RedisKeys.key(Engine.prefix(), THREE, Engine.newIdentity());
    }

    @Test
    void limitInFlightThenDeniedUntilOneIsReleased() {
        String key = key();
        for (int i = 1; i <= 3; i++) {
            long[] r = call(THREE, key, 1, T0, "a" + i);
            assertTrue(all(r), show(r));
            assertEquals(3 - i, remaining(r, 0), show(r));
        }
        long[] denied = call(THREE, key, 1, T0 + 5, "a4");
        assertFalse(all(denied), show(denied));
        assertEquals(0, remaining(denied, 0), show(denied));
        // a slot frees when a request ends, which no clock predicts: retry after a second at most
        assertEquals(1_000, retryMs(denied, 0), show(denied));
        assertEquals(1_000, resetMs(denied, 0), show(denied));
        release(THREE, key, 1, "a2");
        long[] after = call(THREE, key, 1, T0 + 10, "a5");
        assertTrue(all(after), () -> "a released slot is free at once: " + show(after));
        assertEquals(0, remaining(after, 0), show(after));
        assertFalse(all(call(THREE, key, 1, T0 + 11, "a6")), "the released slot was taken again");
    }

    @Test
    void aSlotNobodyReleasesIsFreeOnceItsWindowHasPassed() {
        String key = key();
        for (int i = 1; i <= 3; i++) {
            assertTrue(all(call(THREE, key, 1, T0, "dead" + i)));
        }
        long[] almost = call(THREE, key, 1, T0 + 60 * S - 500, "x");
        assertFalse(all(almost), show(almost));
        assertEquals(1, retryMs(almost, 0), () -> "500 us until the leases expire, rounded up: " + show(almost));
        long[] expired = call(THREE, key, 1, T0 + 60 * S, "y");
        assertTrue(all(expired), () -> "leases taken a window ago have expired: " + show(expired));
        assertEquals(2, remaining(expired, 0), show(expired));
    }

    @Test
    void costTakesThatManySlotsAndItsReleaseFreesThemAll() {
        String key = key();
        assertTrue(all(call(THREE, key, 2, T0, "two")));
        long[] denied = call(THREE, key, 2, T0 + 1, "more");
        assertFalse(all(denied), show(denied));
        assertEquals(1, remaining(denied, 0), "a denied request takes nothing: " + show(denied));
        long[] never = call(THREE, key, 4, T0 + 2, "four");
        assertFalse(all(never), show(never));
        assertEquals(-1, retryMs(never, 0), "a cost above the limit is never admitted: " + show(never));
        release(THREE, key, 2, "two");
        long[] all3 = call(THREE, key, 3, T0 + 3, "three");
        assertTrue(all(all3), () -> "both slots came back: " + show(all3));
    }

    @Test
    void releasingTwiceOrAnUnknownLeaseFreesNothingElse() {
        String key = key();
        for (int i = 1; i <= 3; i++) {
            assertTrue(all(call(THREE, key, 1, T0, "b" + i)));
        }
        release(THREE, key, 1, "b1");
        release(THREE, key, 1, "b1");
        release(THREE, key, 1, "never-taken");
        assertTrue(all(call(THREE, key, 1, T0 + 1, "b4")));
        assertFalse(all(call(THREE, key, 1, T0 + 2, "b5")), "one release frees one slot, however often it is sent");
    }

    @Test
    void aDeniedOrDryCallTakesNoSlot() {
        String key = key();
        Policy strict = Engine.policy("strict", Algorithm.FIXED_WINDOW, 1, Duration.ofMinutes(1), 1);
        String strictKey = RedisKeys.key(Engine.prefix(), strict, Engine.newIdentity());
        Policy[] both = { THREE, strict };
        String[] keys = { key, strictKey };
        long[] costs = { 1, 1 };
        assertTrue(all(call(both, keys, costs, T0, false, "c1")));
        long[] denied = call(both, keys, costs, T0 + 1, false, "c2");
        assertFalse(all(denied), "the rate policy denies: " + show(denied));
        assertTrue(admitted(denied, 0), show(denied));
        long[] dry = call(THREE, key, 2, T0 + 2, "c3");
        assertTrue(all(dry));
        // all-or-nothing: the denied call took no slot, so c1 and c3 hold 3 and the next one is denied
        assertEquals(0, remaining(dry, 0), show(dry));
        long[] checked = call(new Policy[] { THREE }, new String[] { key }, new long[] { 1 }, T0 + 3, true, "c4");
        assertFalse(all(checked), show(checked));
        release(THREE, key, 2, "c3");
        call(new Policy[] { THREE }, new String[] { key }, new long[] { 2 }, T0 + 4, true, "c5");
        assertTrue(all(call(THREE, key, 2, T0 + 5, "c6")), "a dry run took no slot");
    }

    /**
     * A concurrency key is apart from the rate algorithms' keys of the same policy name and identity: a policy switched
     * between deploys from a rate algorithm to {@code concurrency} and back decides on both sides without a failure.
     */
    @Test
    void aPolicySwitchedToConcurrencyAndBackNeverFails() {
        String identity = Engine.newIdentity();
        Policy rate = Engine.policy("switched", Algorithm.SLIDING_WINDOW_LOG, 3, Duration.ofMinutes(1), 3);
        Policy inFlight = Engine.policy("switched", Algorithm.CONCURRENCY, 3, Duration.ofMinutes(1), 3);
        String rateKey = RedisKeys.key(Engine.prefix(), rate, identity);
        String inFlightKey = RedisKeys.key(Engine.prefix(), inFlight, identity);
        assertNotEquals(rateKey, inFlightKey);
        assertEquals(rateKey + RedisKeys.IN_FLIGHT, inFlightKey);
        assertEquals(RedisKeys.hashTag(rateKey), RedisKeys.hashTag(inFlightKey), "one identity, one cluster slot");
        for (int i = 0; i < 3; i++) {
            assertTrue(all(call(rate, rateKey, 1, T0 + i, "r" + i)), "old deploy, rate");
            assertTrue(all(call(inFlight, inFlightKey, 1, T0 + i, "s" + i)), "new deploy, in flight");
        }
        assertFalse(all(call(rate, rateKey, 1, T0 + 5, "r3")));
        assertFalse(all(call(inFlight, inFlightKey, 1, T0 + 5, "s3")));
    }

    @Test
    void theKeyLivesNoLongerThanItsLongestLease() {
        String key = key();
        assertTrue(all(limiter.backend().decide(new Policy[] { THREE }, new String[] { key }, new long[] { 1 },
                RateLimitBackend.BACKEND_CLOCK, false, "ttl").await().atMost(Duration.ofSeconds(10)).toScriptOrder()));
        try (RespClient redis = RedisFixture.shared().client()) {
            long ttl = redis.callLong("PTTL", key);
            assertTrue(ttl > 55_000 && ttl <= 60_000, "PTTL " + ttl);
            limiter.backend().release(new Policy[] { THREE }, new String[] { key }, new long[] { 1 }, "ttl").await()
                    .atMost(Duration.ofSeconds(10));
            assertEquals(0, redis.callLong("EXISTS", key), "the last release leaves nothing behind");
        }
    }

    /** The limiter's path: a decision holds its slots until {@code release()}, which frees them once. */
    @Test
    void aDecisionHoldsItsSlotsUntilReleased() {
        String id = Engine.newIdentity();
        List<RateLimitDecision> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RateLimitDecision d = limiter.checkBlocking("in-flight", id);
            assertTrue(d.allowed(), d::toString);
            assertTrue(d.holdsSlots(), d::toString);
            assertEquals(RateLimitDecision.Source.REDIS, d.source());
            held.add(d);
        }
        RateLimitDecision denied = limiter.checkBlocking("in-flight", id);
        assertFalse(denied.allowed(), denied::toString);
        assertFalse(denied.holdsSlots(), "a denial holds nothing");
        assertEquals(1, denied.retryAfterSeconds());
        held.get(0).release();
        held.get(0).release(); // twice: frees nothing more
        assertFalse(held.get(0).holdsSlots());
        RateLimitDecision again = await(id);
        assertTrue(again.allowed(), () -> "released slot not free: " + again);
        assertFalse(limiter.checkBlocking("in-flight", id).allowed(), "one release freed exactly one slot");
        held.get(1).release();
        held.get(2).release();
        again.release();
    }

    /**
     * A release that reaches Redis before its charge (the call was given up on while its charge was still queued, or
     * its charge was resent after NOSCRIPT): the charge, when it comes, is denied and takes nothing, in every policy of
     * the call; a second release does not lift the tombstone. Before the tombstones, the late charge held its slot
     * for the whole window.
     */
    @Test
    void aReleaseThatOvertakesItsChargeLeavesNoSlot() {
        String key = key();
        releaseAt(THREE, key, 1, "late", T0);
        releaseAt(THREE, key, 1, "late", T0 + 1); // released twice before the charge: still refused
        long[] late = call(THREE, key, 1, T0 + 2, "late");
        assertFalse(all(late), () -> "a charge of a released lease is refused: " + show(late));
        assertEquals(-1, retryMs(late, 0), () -> "and never admitted: " + show(late));
        assertEquals(3, remaining(late, 0), show(late));
        for (int i = 1; i <= 3; i++) {
            assertTrue(all(call(THREE, key, 1, T0 + 3, "on-time" + i)), "the three slots are all free");
        }
        // the tombstone goes with its window: a lease of that name could be charged again afterwards
        releaseAt(THREE, key, 2, "two", T0 + 4);
        long[] afterWindow = call(THREE, key, 2, T0 + 4 + THREE.windowMicros(), "two");
        assertTrue(all(afterWindow), () -> "a tombstone lives a window: " + show(afterWindow));
    }

    /**
     * A {@code Uni} of the limiter subscribed several times (a retry, a reused check) is that many calls, each with its
     * own lease: three subscriptions hold the three slots and a fourth is denied; freeing one frees exactly one. Before,
     * every subscription named the same lease, so all were admitted on one slot and the first release freed it for all.
     */
    @Test
    void aCheckSubscribedTwiceTakesASlotPerSubscription() {
        String id = Engine.newIdentity();
        io.smallrye.mutiny.Uni<RateLimitDecision> check = limiter.check("in-flight", id, 1);
        List<RateLimitDecision> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RateLimitDecision d = check.await().atMost(java.time.Duration.ofSeconds(10));
            assertTrue(d.allowed(), d::toString);
            held.add(d);
        }
        RateLimitDecision fourth = check.await().atMost(java.time.Duration.ofSeconds(10));
        assertFalse(fourth.allowed(), () -> "three subscriptions hold the three slots: " + fourth);
        held.get(0).release();
        RateLimitDecision again = await(id);
        assertTrue(again.allowed(), () -> "one release frees one slot: " + again);
        assertFalse(check.await().atMost(java.time.Duration.ofSeconds(10)).allowed(), "and only one");
        held.get(1).release();
        held.get(2).release();
        again.release();
    }

    private void releaseAt(Policy p, String key, long cost, String lease, long now) {
        Policy[] ps = { p };
        String[] keys = { key };
        long[] costs = { cost };
        limiter.backend().release(ps, keys, costs, lease, now).await().atMost(Duration.ofSeconds(10));
        local.releaseNow(ps, keys, lease, now);
    }

    /** A release is sent without waiting; the next decision on the same connection sees it. */
    private RateLimitDecision await(String id) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        RateLimitDecision d;
        do {
            d = limiter.checkBlocking("in-flight", id);
        } while (!d.allowed() && System.nanoTime() < deadline);
        return d;
    }

    /**
     * Many threads on one key, each taking a slot, holding it a moment and releasing it: at no time are more than the
     * limit admitted and not yet released, and every slot comes back (the key is empty at the end).
     */
    @Test
    void manyThreadsNeverHoldMoreThanTheLimit() throws Exception {
        String id = Engine.newIdentity();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger admittedCount = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < 40; i++) {
                    RateLimitDecision d = limiter.checkBlocking("in-flight", id);
                    if (d.allowed()) {
                        admittedCount.incrementAndGet();
                        int now = inFlight.incrementAndGet();
                        most.accumulateAndGet(now, Math::max);
                        Thread.sleep(1);
                        // counted out before the release is sent: the count can only be above the truth
                        inFlight.decrementAndGet();
                        d.release();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertTrue(most.get() <= 3, "held at once: " + most.get());
        assertTrue(admittedCount.get() >= 3, "admitted: " + admittedCount.get());
        String key = RedisKeys.key("rl", limiter.policies().get("in-flight"), id); // the default key prefix
        try (RespClient redis = RedisFixture.shared().client()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (redis.callLong("EXISTS", key) != 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, redis.callLong("EXISTS", key), "every slot was released: " + key);
        }
    }
}
