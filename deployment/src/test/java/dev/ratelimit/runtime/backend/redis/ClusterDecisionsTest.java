package dev.ratelimit.runtime.backend.redis;

import static dev.ratelimit.runtime.algorithm.Engine.BASE;
import static dev.ratelimit.runtime.algorithm.Engine.S;
import static dev.ratelimit.runtime.algorithm.Engine.admitted;
import static dev.ratelimit.runtime.algorithm.Engine.all;
import static dev.ratelimit.runtime.algorithm.Engine.remaining;
import static dev.ratelimit.runtime.algorithm.Engine.show;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.algorithm.Engine;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.backend.KeyOverride;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.runtime.backend.redis.transport.LuaScriptExecutor;
import dev.ratelimit.runtime.core.DefaultRateLimiter;
import dev.ratelimit.runtime.policy.CountedOutcomes;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.test.redis.RedisClusterFixture.Node;
import dev.ratelimit.test.redis.RedisClusterFixture;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;

/**
 * Decisions on a Redis Cluster (3 primaries, 3 replicas) through the extension's cluster client: keys land on
 * the node owning their slot, policies of one identity are decided in one script call, and policies of different
 * identities (different slots) go through the check-then-charge path; no CROSSSLOT anywhere.
 */
class ClusterDecisionsTest {

    private static final Logger LOG = Logger.getLogger(ClusterDecisionsTest.class);

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Engine.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisClusterFixture.shared().seedUris())
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.per-user.algorithm", "token-bucket")
            .overrideConfigKey("quarkus.ratelimit.policies.per-user.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.per-user.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.site.algorithm", "fixed-window")
            .overrideConfigKey("quarkus.ratelimit.policies.site.limit", "2")
            .overrideConfigKey("quarkus.ratelimit.policies.site.window", "1h")
            .overrideConfigKey("quarkus.ratelimit.policies.site.key", "global");

    @Inject
    DefaultRateLimiter limiter;

    @Inject
    LuaScriptRegistry scripts;

    @Inject
    Redis redis;

    @Inject
    io.vertx.core.Vertx vertx;

    private final Policy perUser = Engine.policy("per-user", Algorithm.TOKEN_BUCKET, 5, Duration.ofHours(1), 5);
    private final Policy hourly = Engine.policy("hourly", Algorithm.SLIDING_WINDOW_LOG, 3, Duration.ofHours(1), 3);
    private final Policy site = Engine.policy("site", Algorithm.FIXED_WINDOW, 2, Duration.ofHours(1), 2);

    private RateLimitBackend backend() {
        RateLimitBackend b = limiter.backend();
        assertInstanceOf(RedisBackend.class, b);
        return b;
    }

    private long[] decide(Policy[] ps, String[] keys, long[] costs, long now) {
        // straight on the backend: a Redis error must fail the test, not be absorbed by a failure mode
        return backend().decide(ps, keys, costs, now, false).await().atMost(Duration.ofSeconds(10)).toScriptOrder();
    }

    /**
     * Concurrency slots of two identities (two slots, two nodes): charged through the check-then-charge path, each on
     * its slot's owner, and released there (one release call per slot).
     */
    @Test
    void concurrencySlotsAcrossSlotsAreTakenAndReleasedOnEachOwner() {
        Policy perUserInFlight = Engine.policy("per-user-in-flight", Algorithm.CONCURRENCY, 1, Duration.ofHours(1), 1);
        Policy siteInFlight = Engine.policy("site-in-flight", Algorithm.CONCURRENCY, 2, Duration.ofHours(1), 2);
        Policy[] ps = { perUserInFlight, siteInFlight };
        String[] keys = { RedisKeys.key(Engine.prefix(), perUserInFlight, "user-" + Engine.newIdentity()),
                RedisKeys.key(Engine.prefix(), siteInFlight, "site-" + Engine.newIdentity()) };
        long[] costs = { 1, 1 };
        RedisClusterFixture cluster = RedisClusterFixture.shared();
        assertTrue(all(backend().decide(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, false, "lease-a").await()
                .atMost(Duration.ofSeconds(10)).toScriptOrder()));
        for (String key : keys) {
            try (RespClient node = cluster.primaryForSlot(RedisClusterFixture.slot(key)).client()) {
                assertEquals(1L, node.callLong("ZCARD", key), key);
            }
        }
        long[] second = backend().decide(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, false, "lease-b").await()
                .atMost(Duration.ofSeconds(10)).toScriptOrder();
        assertFalse(all(second), () -> "the user's one slot is taken: " + show(second));
        backend().release(ps, keys, costs, "lease-a").await().atMost(Duration.ofSeconds(10));
        for (String key : keys) {
            try (RespClient node = cluster.primaryForSlot(RedisClusterFixture.slot(key)).client()) {
                assertEquals(0L, node.callLong("EXISTS", key), () -> key + " released on its owner");
            }
        }
        assertTrue(all(backend().decide(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, false, "lease-c").await()
                .atMost(Duration.ofSeconds(10)).toScriptOrder()), "both slots free again");
    }

    /**
     * A concurrency slot and a rate limit of another identity (two slots): 40 calls at once all pass the first pass
     * (the site's 3 units are there), then charge group by group, where the site admits only 3. The 37 calls the site
     * denies in the second pass are denied, so they must hold no slot: afterwards exactly the 3 admitted leases are in
     * flight (before the fix, all 40 were, for the policy's hour).
     */
    @Test
    void aCallASecondGroupDeniesHoldsNoSlotOfTheFirst() {
        Policy inFlight = Engine.policy("user-in-flight", Algorithm.CONCURRENCY, 100, Duration.ofHours(1), 100);
        Policy siteLimit = Engine.policy("site-three", Algorithm.FIXED_WINDOW, 3, Duration.ofHours(1), 3);
        Policy[] ps = { inFlight, siteLimit };
        String[] keys = { RedisKeys.key(Engine.prefix(), inFlight, "user-" + Engine.newIdentity()),
                RedisKeys.key(Engine.prefix(), siteLimit, "site-" + Engine.newIdentity()) };
        assertNotEquals(RedisClusterFixture.slot(keys[0]), RedisClusterFixture.slot(keys[1]), "two slots");
        long[] costs = { 1, 1 };
        java.util.List<io.smallrye.mutiny.Uni<long[]>> calls = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            calls.add(backend().decide(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, false, "race-" + i)
                    .map(r -> r.toScriptOrder()));
        }
        java.util.List<long[]> replies = io.smallrye.mutiny.Uni.join().all(calls).andFailFast().await()
                .atMost(Duration.ofSeconds(20));
        long admitted = replies.stream().filter(Engine::all).count();
        assertEquals(3, admitted, "the site's limit admits three");
        RedisClusterFixture cluster = RedisClusterFixture.shared();
        try (RespClient node = cluster.primaryForSlot(RedisClusterFixture.slot(keys[0])).client()) {
            // tombstones of the releases score below zero; leases in flight above
            assertEquals(3L, node.callLong("ZCOUNT", keys[0], "(0", "+inf"),
                    "only the admitted calls hold a slot; the ones the site denied freed theirs");
        }
    }

    @Test
    void keysSpreadOverAllPrimariesEachOnItsSlotOwner() {
        RedisClusterFixture cluster = RedisClusterFixture.shared();
        Map<Node, Integer> perPrimary = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            String key = RedisKeys.key(Engine.prefix(), "per-user", "user-" + i);
            long[] r = decide(new Policy[] { perUser }, new String[] { key }, new long[] { 1 },
                    RateLimitBackend.BACKEND_CLOCK);
            assertTrue(all(r), show(r));
            Node owner = cluster.primaryForSlot(RedisClusterFixture.slot(key));
            // asked directly (no redirects): a key on any other node would answer MOVED, i.e. fail here
            try (RespClient node = owner.client()) {
                assertEquals(1L, node.call("EXISTS", key), () -> key + " on " + owner);
                assertTrue(node.callLong("PTTL", key) > 0, key);
            }
            perPrimary.merge(owner, 1, Integer::sum);
        }
        LOG.infof("300 keys per primary: %s", perPrimary);
        assertEquals(3, perPrimary.size(), () -> "every primary got keys: " + perPrimary);
    }

    /**
     * Calls made together on an event loop while others are in flight go in runs of one slot each: the burst on a hot
     * key is decided in runs of many (as on one Redis), calls on keys of other slots go in runs of their own (no
     * CROSSSLOT), and every policy stays exact: 100 of 300 on the hot key, each other key its own 2 of 3.
     */
    @Test
    void concurrentCallsGoInRunsOfOneSlotAndStayExact() throws InterruptedException {
        Policy hot = Engine.policy("hot", Algorithm.FIXED_WINDOW, 100, Duration.ofHours(1), 100);
        Policy each = Engine.policy("each", Algorithm.FIXED_WINDOW, 2, Duration.ofHours(1), 2);
        String hotKey = RedisKeys.key(Engine.prefix(), "hot", Engine.newIdentity());
        List<String> others = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            others.add(RedisKeys.key(Engine.prefix(), "each", Engine.newIdentity()));
        }
        java.util.Queue<BackendReply> onHot = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.Queue<Throwable> failures = new java.util.concurrent.ConcurrentLinkedQueue<>();
        Map<String, java.util.concurrent.atomic.AtomicInteger> admittedPerKey = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(300 + 3 * others.size());
        RateLimitBackend b = backend();
        vertx.runOnContext(v -> {
            for (int i = 0; i < 300; i++) {
                b.decide(new Policy[] { hot }, new String[] { hotKey }, new long[] { 1 }, RateLimitBackend.BACKEND_CLOCK,
                        false).subscribe().with(r -> {
                            onHot.add(r);
                            done.countDown();
                        }, f -> {
                            failures.add(f);
                            done.countDown();
                        });
                if (i % 7 == 0) {
                    for (int k = 0; k < 3 && (i / 7) < others.size(); k++) {
                        String key = others.get(i / 7);
                        b.decide(new Policy[] { each }, new String[] { key }, new long[] { 1 },
                                RateLimitBackend.BACKEND_CLOCK, false).subscribe().with(r -> {
                                    if (r.allAdmitted()) {
                                        admittedPerKey.computeIfAbsent(key, x -> new java.util.concurrent.atomic.AtomicInteger())
                                                .incrementAndGet();
                                    }
                                    done.countDown();
                                }, f -> {
                                    failures.add(f);
                                    done.countDown();
                                });
                    }
                }
            }
        });
        assertTrue(done.await(30, java.util.concurrent.TimeUnit.SECONDS), "every call answered");
        assertEquals(List.of(), List.copyOf(failures), "no call failed (no CROSSSLOT)");
        assertEquals(100, onHot.stream().filter(BackendReply::allAdmitted).count(), "exactly the hot key's limit");
        int longestRun = onHot.stream().mapToInt(BackendReply::runSize).max().orElse(0);
        assertTrue(longestRun > 1, () -> "the hot key's burst went in runs, the longest of " + longestRun);
        for (String key : others) {
            assertEquals(2, admittedPerKey.getOrDefault(key, new java.util.concurrent.atomic.AtomicInteger()).get(), key);
        }
    }

    @Test
    void policiesOfOneIdentityShareASlotAndAreAllOrNothing() {
        String identity = Engine.newIdentity();
        String userKey = RedisKeys.key(Engine.prefix(), "per-user", identity);
        String hourlyKey = RedisKeys.key(Engine.prefix(), "hourly", identity);
        assertEquals(RedisClusterFixture.slot(userKey), RedisClusterFixture.slot(hourlyKey));
        Policy[] both = { perUser, hourly };
        String[] keys = { userKey, hourlyKey };
        long now = BASE + S;
        for (int i = 0; i < 3; i++) {
            assertTrue(all(decide(both, keys, new long[] { 1, 1 }, now)));
        }
        // the hourly log is full: the request is denied and the per-user bucket is not charged
        long[] denied = decide(both, keys, new long[] { 1, 1 }, now);
        assertFalse(all(denied), show(denied));
        assertTrue(admitted(denied, 0) && !admitted(denied, 1), show(denied));
        assertEquals(2, remaining(denied, 0), show(denied));
        long[] userOnly = decide(new Policy[] { perUser }, new String[] { userKey }, new long[] { 1 }, now);
        assertEquals(1, remaining(userOnly, 0), () -> "the denied request charged per-user: " + show(userOnly));
    }

    @Test
    void policiesOfDifferentIdentitiesAreCheckedThenCharged() {
        String userA = RedisKeys.key(Engine.prefix(), "per-user", Engine.newIdentity());
        String userB = RedisKeys.key(Engine.prefix(), "per-user", Engine.newIdentity());
        String global = RedisKeys.key(Engine.prefix(), "site", Engine.newIdentity());
        assertNotEquals(RedisClusterFixture.slot(userA), RedisClusterFixture.slot(global));
        long now = BASE + S;
        long[] first = decide(new Policy[] { perUser, site }, new String[] { userA, global }, new long[] { 1, 1 }, now);
        assertTrue(all(first), show(first));
        assertEquals(4, remaining(first, 0), show(first));
        assertEquals(1, remaining(first, 1), show(first));
        assertTrue(all(decide(new Policy[] { perUser, site }, new String[] { userB, global }, new long[] { 1, 1 }, now)));
        // the site-wide window is full: denied, and user A's bucket is left alone
        long[] denied = decide(new Policy[] { perUser, site }, new String[] { userA, global }, new long[] { 1, 1 }, now);
        assertFalse(all(denied), show(denied));
        assertFalse(admitted(denied, 1), show(denied));
        long[] check = decide(new Policy[] { perUser }, new String[] { userA }, new long[] { 1 }, now);
        assertEquals(3, remaining(check, 0), () -> "the denied request charged user A: " + show(check));

        // the same through the public API: decided by Redis, not by a failure mode
        RateLimitDecision decision = limiter.checkBlocking(RateLimitCheck.of("per-user", Engine.newIdentity()),
                RateLimitCheck.of("site", "everyone-" + Engine.newIdentity()));
        assertTrue(decision.allowed(), decision.toString());
        assertEquals(RateLimitDecision.Source.REDIS, decision.source(), decision.toString());
    }

    /**
     * A reservation across slots is charged slot by slot, each at its node's instant (the merged reply keeps each
     * policy's), and its settlement goes to each slot with that instant: a refund on one slot and a debit on the other
     * land where they were charged, as the in-process backend settles them.
     */
    @Test
    void aReservationAcrossSlotsIsSettledOnEachSlot() {
        String user = RedisKeys.key(Engine.prefix(), "per-user", Engine.newIdentity());
        String global = RedisKeys.key(Engine.prefix(), "hourly", Engine.newIdentity());
        assertNotEquals(RedisClusterFixture.slot(user), RedisClusterFixture.slot(global));
        Policy[] ps = { perUser, hourly };
        String[] keys = { user, global };
        long now = BASE + S;
        BackendReply reserved = backend().reserve(ps, keys, new long[] { 4, 2 }, now, null).await()
                .atMost(Duration.ofSeconds(10));
        LocalBackend local = new LocalBackend();
        BackendReply reservedHere = local.reserveNow(ps, keys, new long[] { 4, 2 }, now, null);
        assertTrue(reserved.allAdmitted(), reserved::toString);
        assertEquals(now, reserved.chargedAt(0), "each policy's charge instant, from its slot's reply");
        assertEquals(now, reserved.chargedAt(1));
        long[] here = reservedHere.toScriptOrder();
        long[] there = reserved.toScriptOrder();
        // per policy the same (the first value: an instant from one script, 1 for a reply merged from two)
        assertArrayEquals(Arrays.copyOfRange(here, 1, here.length), Arrays.copyOfRange(there, 1, there.length));
        // per-user used 1 of 4 (3 back), hourly 3 of 2 (1 more)
        long[] settled = backend().settle(ps, keys, new long[] { 3, -1 }, new long[] { now, now }, now + S).await()
                .atMost(Duration.ofSeconds(10)).toScriptOrder();
        long[] settledHere = local.settleNow(ps, keys, new long[] { 3, -1 }, new long[] { now, now }, now + S)
                .toScriptOrder();
        assertArrayEquals(settledHere, settled, () -> "local " + show(settledHere) + " vs cluster " + show(settled));
        assertEquals(4, remaining(settled, 0), show(settled));
        assertEquals(0, remaining(settled, 1), () -> "3 of 3 used: " + show(settled));
    }

    /**
     * A policy with a lock-out that denies in the first pass of a cross-slot call (checked, nothing charged) locks its
     * key out on its slot's owner as a single call would: later calls on that key are denied until the lock-out ends,
     * alone or across slots, and report what the in-process backend reports, step by step.
     */
    @Test
    void aLockOutDenyingInTheCheckPassLocksItsKeyOut() {
        Policy siteLocking = new Policy("site", Algorithm.FIXED_WINDOW, 2, Duration.ofSeconds(1), 2, "global", false,
                FailureMode.FAIL_CLOSED, List.of(), List.of(), Duration.ofHours(1));
        String user = RedisKeys.key(Engine.prefix(), "per-user", Engine.newIdentity());
        String global = RedisKeys.key(Engine.prefix(), "site", Engine.newIdentity());
        assertNotEquals(RedisClusterFixture.slot(user), RedisClusterFixture.slot(global));
        Policy[] ps = { perUser, siteLocking };
        String[] keys = { user, global };
        long[] costs = { 1, 1 };
        LocalBackend local = new LocalBackend();
        long now = BASE + S;
        long[] last = null;
        // admitted twice, denied (locking out), then 5 s later (the window long past) still locked out
        for (long at : new long[] { now, now, now, now + 5 * S }) {
            long[] fromCluster = decide(ps, keys, costs, at);
            long[] fromLocal = local.decideNow(ps, keys, costs, at, false).toScriptOrder();
            assertArrayEquals(fromLocal, fromCluster, () -> "local " + show(fromLocal) + " vs cluster "
                    + show(fromCluster));
            last = fromCluster;
        }
        long[] locked = last;
        assertFalse(all(locked), show(locked));
        assertEquals(0, remaining(locked, 1), show(locked));
        assertTrue(locked[1 + 4 + 2] > 3_590_000, () -> "the lock-out's end, in ms: " + show(locked));
        long[] alone = decide(new Policy[] { siteLocking }, new String[] { global }, new long[] { 1 }, now + 5 * S);
        assertFalse(all(alone), () -> "locked out alone too: " + show(alone));
    }

    /**
     * A key's override on a cluster: stored on its slot's owner beside the key, applied there by the check and by the
     * charge of a call across slots, and reported for every policy of the call, as the in-process backend does.
     */
    @Test
    void anOverrideAppliesOnItsKeysSlotInACallAcrossSlots() {
        Policy userTaking = new Policy("per-user", Algorithm.TOKEN_BUCKET, 5, Duration.ofHours(1), 5, "global", false,
                FailureMode.FAIL_CLOSED, List.of(), List.of(), Duration.ZERO, CountedOutcomes.ALL, true);
        String user = RedisKeys.key(Engine.prefix(), "per-user", Engine.newIdentity());
        String global = RedisKeys.key(Engine.prefix(), "site", Engine.newIdentity());
        assertNotEquals(RedisClusterFixture.slot(user), RedisClusterFixture.slot(global));
        KeyOverride one = new KeyOverride(1, 0, 0, 0, null);
        backend().setOverride(user, one).await().atMost(Duration.ofSeconds(10));
        assertEquals(one, backend().readOverride(user).await().atMost(Duration.ofSeconds(10)));
        LocalBackend local = new LocalBackend();
        local.rememberOverride(user, one);
        Policy[] ps = { userTaking, site };
        String[] keys = { user, global };
        long[] costs = { 1, 1 };
        long now = BASE + S;
        for (int i = 0; i < 2; i++) {
            long[] fromCluster = decide(ps, keys, costs, now);
            long[] fromLocal = local.decideNow(ps, keys, costs, now, false).toScriptOrder();
            assertArrayEquals(fromLocal, fromCluster, () -> "local " + show(fromLocal) + " vs cluster "
                    + show(fromCluster));
            // the override's limit for the user's policy, the site's own for the site's
            assertEquals(1, fromCluster[9], show(fromCluster));
            assertEquals(2, fromCluster[11], show(fromCluster));
            assertEquals(i == 0, all(fromCluster), show(fromCluster));
        }
        backend().clearOverride(user).await().atMost(Duration.ofSeconds(10));
        assertEquals(null, backend().readOverride(user).await().atMost(Duration.ofSeconds(10)));
    }

    /**
     * A denied cross-slot request must report what a single call (and the local backend) reports: the admitting
     * policy uncharged. The check-then-charge path reports its dry-run view instead: remaining minus the cost and
     * the reset of a charge that never happened.
     */
    @Test
    void deniedCrossSlotRequestReportsTheUnchargedState() {
        String user = RedisKeys.key(Engine.prefix(), "per-user", Engine.newIdentity());
        String global = RedisKeys.key(Engine.prefix(), "site", Engine.newIdentity());
        Policy[] ps = { perUser, site };
        String[] keys = { user, global };
        long[] costs = { 1, 1 };
        LocalBackend local = new LocalBackend();
        long now = BASE + S;
        for (int i = 0; i < 3; i++) {
            long[] fromCluster = decide(ps, keys, costs, now);
            long[] fromLocal = local.decideNow(ps, keys, costs, now, false).toScriptOrder();
            int step = i;
            assertArrayEquals(fromLocal, fromCluster,
                    () -> "step " + step + ": local " + show(fromLocal) + " vs cluster " + show(fromCluster));
        }
    }

    @Test
    void aSingleScriptCallAcrossSlotsWouldFail() {
        // why the check-then-charge path exists: the cluster refuses one script touching two slots
        String a = RedisKeys.key(Engine.prefix(), "per-user", Engine.newIdentity());
        String b = RedisKeys.key(Engine.prefix(), "per-user", Engine.newIdentity());
        assertNotEquals(RedisClusterFixture.slot(a), RedisClusterFixture.slot(b));
        RedisOptions options = new RedisOptions().setType(RedisClientType.CLUSTER);
        for (String seed : RedisClusterFixture.shared().seedUris().split(",")) {
            options.addConnectionString(seed);
        }
        LuaScriptExecutor executor = new LuaScriptExecutor(vertx, options);
        String[] args = { Long.toString(BASE), "1", "token-bucket", "5", "3600000000", "5", "0", "1", "token-bucket",
                "5", "3600000000", "5", "0", "1" };
        Throwable failure = assertThrows(RuntimeException.class, () -> executor
                .execute(scripts.forAlgorithm(Algorithm.TOKEN_BUCKET), new String[] { a, b }, args)
                .await().atMost(Duration.ofSeconds(10)));
        LOG.infof("One script call across slots fails with: %s", failure.getMessage());
        // while the backend decides the same request fine
        long[] r = decide(new Policy[] { perUser, Engine.policy("other", Algorithm.TOKEN_BUCKET, 5, Duration.ofHours(1), 5) }, new String[] { a, b },
                new long[] { 1, 1 }, BASE);
        assertTrue(all(r), show(r));
    }
}
