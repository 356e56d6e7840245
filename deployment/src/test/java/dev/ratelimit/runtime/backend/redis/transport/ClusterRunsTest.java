package dev.ratelimit.runtime.backend.redis.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.ratelimit.runtime.algorithm.Algorithm;
import dev.ratelimit.runtime.algorithm.Engine;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.backend.redis.RedisBackend;
import dev.ratelimit.runtime.backend.redis.script.LuaScriptRegistry;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.test.redis.RedisClusterFixture;
import dev.ratelimit.test.redis.RedisClusterFixture.Node;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;

/**
 * Runs on a Redis Cluster (3 primaries, 3 replicas) hold the calls of one node, whatever their slots: the executor's
 * slot map agrees with Redis on every key, a run across slots decides exactly what the same calls decide one by one
 * and costs one script call for many decisions, and a call whose slot moved after the map was read goes again on its
 * own and is decided once, on its new owner.
 */
class ClusterRunsTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Engine.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisClusterFixture.shared().seedUris())
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .overrideConfigKey("quarkus.ratelimit.policies.api.limit", "5")
            .overrideConfigKey("quarkus.ratelimit.policies.api.window", "1m");

    private static final Duration HOUR = Duration.ofHours(1);

    @Inject
    Vertx vertx;

    @Inject
    LuaScriptRegistry scripts;

    private final Policy bucket = Engine.policy("bucket", Algorithm.TOKEN_BUCKET, 2, HOUR, 2);
    private final Policy fixed = Engine.policy("fixed", Algorithm.FIXED_WINDOW, 3, HOUR, 3);
    private final Policy counter = Engine.policy("counter", Algorithm.SLIDING_WINDOW_COUNTER, 1, HOUR, 1);

    @Test
    void theSlotOfEveryKeyIsRedisOwn() {
        List<String> keys = new ArrayList<>(List.of("", "a", "{", "}", "{}", "{}x", "x{}", "{a}", "x{a}y", "{a}{b}",
                "{{a}}", "a{b{c}d}", "ключ", "k{ключ}", "{ü}x", "emoji-\uD83D\uDE00", "{\uD83D\uDE00}", "rl:api:{10.0.0.1}"));
        for (int i = 0; i < 300; i++) {
            keys.add(RedisKeys.key(Engine.prefix(), "api", "user-" + i));
            keys.add("k" + i * 7919);
        }
        try (RespClient node = RedisClusterFixture.shared().primaries().get(0).client()) {
            for (String key : keys) {
                assertEquals(node.callLong("CLUSTER", "KEYSLOT", key), ClusterSlots.slot(key), key);
            }
        }
    }

    /**
     * 60 identities (about 60 slots over the 3 nodes), each called on three algorithms, some denied, one identity after
     * the other: played one by one and then from one event-loop task (runs across slots), the replies are the same,
     * and the runs took at most a third of the script calls the one-by-one play did (with one slot per run, about as
     * many).
     */
    @Test
    void aRunAcrossSlotsDecidesWhatTheCallsDecideOneByOne() throws Exception {
        long now = Engine.BASE + 11 * Engine.S;
        LuaScriptExecutor executor = new LuaScriptExecutor(vertx, options(), 64, 1);
        RedisBackend batched = new RedisBackend(executor, scripts, true);
        RedisBackend alone = new RedisBackend(new LuaScriptExecutor(vertx, options(), 1, 1), scripts, true);
        try {
            awaitSlots(batched, executor);
            List<Call> calls = new ArrayList<>();
            // one call of each identity after the other: consecutive calls are of different slots
            Call[] kinds = { new Call(bucket, "", 1), new Call(fixed, "", 2), new Call(bucket, "", 1),
                    new Call(counter, "", 1), new Call(fixed, "", 2), new Call(bucket, "", 1), new Call(counter, "", 1) };
            for (Call kind : kinds) {
                for (int i = 0; i < 60; i++) {
                    calls.add(new Call(kind.policy(), "user-" + i, kind.cost()));
                }
            }
            List<long[]> expected = new ArrayList<>();
            String aloneRun = Engine.newIdentity();
            for (Call c : calls) {
                expected.add(c.on(alone, aloneRun, now).await().atMost(Duration.ofSeconds(10)).toScriptOrder());
            }
            long before = scriptCalls();
            String batchedRun = Engine.newIdentity();
            List<Object> outcomes = Engine.inOneEventLoopTask(vertx, calls.stream().map(c -> (Supplier<Uni<?>>) () -> c.on(batched,
                    batchedRun, now)).toList());
            long runs = scriptCalls() - before;
            for (int i = 0; i < calls.size(); i++) {
                Object o = outcomes.get(i);
                if (o instanceof Throwable t) {
                    throw new AssertionError("call " + i + " failed", t);
                }
                assertArrayEquals(expected.get(i), ((BackendReply) o).toScriptOrder(), "call " + i + ": expected "
                        + Engine.show(expected.get(i)) + ", got " + Engine.show(((BackendReply) o).toScriptOrder()));
            }
            assertEquals(0, expected.get(4 * 60)[0], "the second fixed-window call of 2 is denied");
            assertTrue(runs <= calls.size() / 3, calls.size() + " calls took " + runs + " script calls");
        } finally {
            executor.close();
        }
    }

    /**
     * 48 callers in a closed loop (each makes its next call when answered) on keys of every node, through one
     * connection: a node's calls wait while it has a run unanswered, so runs stay as long as the node's share of the
     * callers (16). Were each node's calls sent at the end of every event-loop turn, a reply's callers would be split
     * three ways each time and runs would shrink towards one call.
     */
    @Test
    void closedLoopCallersKeepRunsLongOnEveryNode() throws Exception {
        LuaScriptExecutor executor = new LuaScriptExecutor(vertx, options(), 64, 1);
        RedisBackend batched = new RedisBackend(executor, scripts, true);
        try {
            awaitSlots(batched, executor);
            String run = Engine.newIdentity();
            int callers = 48;
            int total = 4800;
            AtomicInteger made = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(callers);
            long before = scriptCalls();
            vertx.getOrCreateContext().runOnContext(v -> {
                for (int c = 0; c < callers; c++) {
                    next(batched, run, made, failed, total, done);
                }
            });
            assertTrue(done.await(30, TimeUnit.SECONDS), "the callers finished");
            long runs = scriptCalls() - before;
            assertEquals(0, failed.get(), "failed calls");
            double perRun = (double) total / runs;
            assertTrue(perRun >= 8, total + " calls took " + runs + " script calls: " + perRun + " per call");
        } finally {
            executor.close();
        }
    }

    private void next(RedisBackend backend, String run, AtomicInteger made,
            AtomicInteger failed, int total, CountDownLatch done) {
        int i = made.getAndIncrement();
        if (i >= total) {
            done.countDown();
            return;
        }
        backend.decide(new Policy[] { fixed }, new String[] { RedisKeys.key(Engine.prefix(), fixed, run + "-" + i % 1000) },
                new long[] { 1 }, Engine.BASE, false).subscribe().with(r -> next(backend, run, made, failed, total, done),
                        t -> {
                            failed.incrementAndGet();
                            next(backend, run, made, failed, total, done);
                        });
    }

    /**
     * A server that refuses a script the keys it was not given: the extension's function library called on a cluster
     * (its functions declare no {@code allow-cross-slot-keys}, so Redis refuses them keys of another slot). The calls a
     * run across slots could not decide go again on their own and are decided exactly once; runs across slots stop and
     * every later call goes alone.
     */
    @Test
    void aServerRefusingKeysOfOtherSlotsGetsEveryCallAlone() throws Exception {
        RedisClusterFixture cluster = RedisClusterFixture.shared();
        var library = scripts.library();
        for (Node n : cluster.primaries()) {
            try (RespClient c = n.client()) {
                c.call("FUNCTION", "LOAD", "REPLACE", library.code());
            }
        }
        LuaScriptExecutor executor = new LuaScriptExecutor(vertx, options(), 64, 1);
        RedisBackend batched = new RedisBackend(executor, scripts, true);
        try {
            awaitSlots(batched, executor);
            // the library is on every primary; the executor's own load says so once its connection is up
            boolean functions = false;
            for (int attempt = 0; attempt < 5 && !functions; attempt++) {
                if (attempt > 0) {
                    Thread.sleep(1100); // a failed load is tried again after a second
                }
                functions = executor.loadFunctions(library).await().atMost(Duration.ofSeconds(10));
            }
            assertTrue(functions, "calls go as functions");
            String run = Engine.newIdentity();
            List<Supplier<Uni<?>>> calls = new ArrayList<>();
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 40; i++) {
                    String key = RedisKeys.key(Engine.prefix(), fixed, run + "-" + i);
                    calls.add(() -> batched.decide(new Policy[] { fixed }, new String[] { key }, new long[] { 1 },
                            Engine.BASE, false));
                }
            }
            long functionsBefore = functionCalls();
            List<Object> outcomes = Engine.inOneEventLoopTask(vertx, calls);
            for (int i = 0; i < outcomes.size(); i++) {
                Object o = outcomes.get(i);
                if (o instanceof Throwable t) {
                    throw new AssertionError("call " + i + " failed", t);
                }
                long[] reply = ((BackendReply) o).toScriptOrder();
                assertEquals(1, reply[0], "call " + i + ": " + Engine.show(reply));
                assertEquals(i < 40 ? 2 : 1, reply[2], "call " + i + " charged once: " + Engine.show(reply));
            }
            assertTrue(functionCalls() > functionsBefore, "decided by the functions");
            assertEquals(-1, executor.nodeOfSlot(0), "runs across slots stopped");
        } finally {
            executor.close();
            for (Node n : cluster.primaries()) {
                try (RespClient c = n.client()) {
                    c.call("FUNCTION", "DELETE", library.name());
                }
            }
        }
    }

    private static long functionCalls() {
        long n = 0;
        for (Node p : RedisClusterFixture.shared().primaries()) {
            try (RespClient c = p.client()) {
                n += Engine.calls(c, "fcall");
            }
        }
        return n;
    }

    /**
     * A slot moves to another primary after the map was read: a run sent to its old owner with the calls of that
     * node's other slots fails there for the moved key alone (before it touches anything); that call goes again on its
     * own to the new owner and is decided once, the others are decided in the run, and the map is read again.
     */
    @Test
    void aCallWhoseSlotMovedGoesAgainOnItsOwn() throws Exception {
        RedisClusterFixture cluster = RedisClusterFixture.shared();
        LuaScriptExecutor executor = new LuaScriptExecutor(vertx, options(), 64, 1);
        RedisBackend batched = new RedisBackend(executor, scripts, true);
        try {
            awaitSlots(batched, executor);
            String run = Engine.newIdentity();
            Node owner = cluster.primaries().get(0);
            // a key whose slot (on the first primary) holds nothing yet, and keys of other slots of that primary
            String moved = null;
            List<String> stay = new ArrayList<>();
            for (int i = 0; stay.size() < 12 || moved == null; i++) {
                String key = RedisKeys.key(Engine.prefix(), fixed, run + "-" + i);
                int slot = ClusterSlots.slot(key);
                if (!cluster.primaryForSlot(slot).equals(owner)) {
                    continue;
                }
                if (moved == null && countKeysInSlot(owner, slot) == 0) {
                    moved = key;
                } else if (stay.size() < 12) {
                    stay.add(key);
                }
            }
            int slot = ClusterSlots.slot(moved);
            int oldIndex = executor.nodeOfSlot(slot);
            Node target = cluster.primaries().get(1);
            moveEmptySlot(cluster, slot, owner, target);
            try {
                List<Supplier<Uni<?>>> calls = new ArrayList<>();
                List<String> keys = new ArrayList<>(stay.subList(0, 6));
                keys.add(moved);
                keys.addAll(stay.subList(6, 12));
                for (String key : keys) {
                    calls.add(() -> batched.decide(new Policy[] { fixed }, new String[] { key }, new long[] { 1 },
                            Engine.BASE, false));
                }
                List<Object> outcomes = Engine.inOneEventLoopTask(vertx, calls);
                for (int i = 0; i < outcomes.size(); i++) {
                    Object o = outcomes.get(i);
                    if (o instanceof Throwable t) {
                        throw new AssertionError("call on " + keys.get(i) + " failed", t);
                    }
                    long[] reply = ((BackendReply) o).toScriptOrder();
                    assertEquals(1, reply[0], "the first call on " + keys.get(i) + ": " + Engine.show(reply));
                    assertEquals(2, reply[2], "the first call on " + keys.get(i) + ": " + Engine.show(reply));
                }
                try (RespClient newOwner = target.client(); RespClient oldOwner = owner.client()) {
                    assertEquals(1L, newOwner.callLong("EXISTS", moved), "decided on the new owner");
                    assertEquals(0L, oldOwner.callLong("CLUSTER", "COUNTKEYSINSLOT", String.valueOf(slot)));
                }
                // charged once: a second call sees 1 of 3 left
                long[] again = batched.decide(new Policy[] { fixed }, new String[] { moved }, new long[] { 1 }, Engine.BASE,
                        false).await().atMost(Duration.ofSeconds(10)).toScriptOrder();
                assertEquals(1, again[2], "remaining after the second call: " + Engine.show(again));
                awaitUntil(() -> executor.nodeOfSlot(slot) >= 0 && executor.nodeOfSlot(slot) != oldIndex,
                        "the map read again names the new owner");
            } finally {
                try (RespClient newOwner = target.client()) {
                    newOwner.call("DEL", moved);
                }
                moveEmptySlot(cluster, slot, target, owner);
            }
        } finally {
            executor.close();
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------------------

    record Call(Policy policy, String who, long cost) {
        Uni<BackendReply> on(RedisBackend backend, String run, long now) {
            return backend.decide(new Policy[] { policy }, new String[] { RedisKeys.key(Engine.prefix(), policy, run + who) },
                    new long[] { cost }, now, false);
        }
    }

    private static RedisOptions options() {
        RedisOptions o = new RedisOptions().setType(RedisClientType.CLUSTER).setMaxPoolSize(8);
        for (Node n : RedisClusterFixture.shared().nodes()) {
            o.addConnectionString(n.uri());
        }
        return o;
    }

    /** Connects, loads the scripts and waits until the executor has read the cluster's slots. */
    private void awaitSlots(RedisBackend backend, LuaScriptExecutor executor) throws Exception {
        backend.decide(new Policy[] { fixed }, new String[] { RedisKeys.key(Engine.prefix(), fixed, Engine.newIdentity()) },
                new long[] { 1 }, Engine.BASE, false).await().atMost(Duration.ofSeconds(10));
        awaitUntil(() -> executor.nodeOfSlot(0) >= 0, "the slot map is read");
    }

    private static void awaitUntil(Supplier<Boolean> condition, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.get()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(20);
        }
    }

    private static long countKeysInSlot(Node node, int slot) {
        try (RespClient c = node.client()) {
            return c.callLong("CLUSTER", "COUNTKEYSINSLOT", String.valueOf(slot));
        }
    }

    /** Moves a slot that holds no key from one primary to another, as a resharding does, and waits for every primary to see it. */
    private static void moveEmptySlot(RedisClusterFixture cluster, int slot, Node from, Node to) throws InterruptedException {
        String s = String.valueOf(slot);
        try (RespClient source = from.client(); RespClient target = to.client()) {
            target.call("CLUSTER", "SETSLOT", s, "IMPORTING", from.id());
            source.call("CLUSTER", "SETSLOT", s, "MIGRATING", to.id());
            target.call("CLUSTER", "SETSLOT", s, "NODE", to.id());
            source.call("CLUSTER", "SETSLOT", s, "NODE", to.id());
        }
        for (Node n : cluster.primaries()) {
            if (!n.equals(from) && !n.equals(to)) {
                try (RespClient c = n.client()) {
                    c.call("CLUSTER", "SETSLOT", s, "NODE", to.id());
                }
            }
        }
        awaitUntil(() -> cluster.primaryForSlot(slot).equals(to), "slot " + slot + " served by " + to.address());
    }

    private static long scriptCalls() {
        long n = 0;
        for (Node p : RedisClusterFixture.shared().primaries()) {
            try (RespClient c = p.client()) {
                n += Engine.scriptCalls(c);
            }
        }
        return n;
    }
}
