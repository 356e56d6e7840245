package dev.ratelimit.runtime.backend.redis.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
import dev.ratelimit.test.redis.RedisFixture;
import dev.ratelimit.test.redis.RespClient;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Calls decided together in one run of the batch script get exactly the replies they would get one by one: a
 * scenario mixing every algorithm, several policies per call, denials, costs above capacity, shadow policies and
 * dry runs is played once call by call and once as one batch (on fresh keys, at the same explicit instant), and
 * every reply must be identical, in order. Redis counts the script calls, so the batch is known to have been one.
 * The batch also survives Redis forgetting its scripts ({@code SCRIPT FLUSH}: {@code NOSCRIPT}, then {@code EVAL}).
 */
class BatchedDecisionsTest {

    @RegisterExtension
    static final QuarkusUnitTest TEST = Engine.onSharedRedis();

    private static final Duration MINUTE = Duration.ofMinutes(1);

    @Inject
    Vertx vertx;

    @Inject
    LuaScriptRegistry scripts;

    /**
     * One call of the scenario: its policies, their key names (resolved per run), costs, whether it is a dry run, and
     * when it is made, in microseconds after the scenario's instant.
     */
    record Call(Policy[] policies, String[] keyNames, long[] costs, boolean dryRun, long later) {
        Call(Policy[] policies, String[] keyNames, long[] costs, boolean dryRun) {
            this(policies, keyNames, costs, dryRun, 0);
        }

        static Call of(Policy p, String keyName, long cost) {
            return new Call(new Policy[] { p }, new String[] { keyName }, new long[] { cost }, false);
        }

        static Call at(long later, Policy p, String keyName, long cost) {
            return new Call(new Policy[] { p }, new String[] { keyName }, new long[] { cost }, false, later);
        }
    }

    private static List<Call> scenario() {
        Policy fixed = Engine.policy("fixed", Algorithm.FIXED_WINDOW, 3, MINUTE, 3);
        Policy log = Engine.policy("log", Algorithm.SLIDING_WINDOW_LOG, 5, MINUTE, 5);
        Policy counter = Engine.policy("counter", Algorithm.SLIDING_WINDOW_COUNTER, 2, MINUTE, 2);
        Policy bucket = Engine.policy("bucket", Algorithm.TOKEN_BUCKET, 2, MINUTE, 2);
        Policy leaky = Engine.policy("leaky", Algorithm.LEAKY_BUCKET, 2, MINUTE, 2);
        Policy gcra = Engine.shadow(Engine.policy("gcra", Algorithm.GCRA, 1, MINUTE, 1));
        List<Call> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            calls.add(Call.of(fixed, "u1", 1)); // the fourth is denied
        }
        calls.add(new Call(new Policy[] { fixed }, new String[] { "u1" }, new long[] { 1 }, true)); // dry run, denied
        calls.add(new Call(new Policy[] { fixed }, new String[] { "u2" }, new long[] { 2 }, true)); // dry run, admitted
        calls.add(Call.of(fixed, "u2", 4)); // above capacity: never
        for (int i = 0; i < 3; i++) {
            // all-or-nothing over two algorithms: the third is denied by the bucket and charges nothing in the log
            calls.add(new Call(new Policy[] { bucket, log }, new String[] { "u3", "u3" }, new long[] { 1, 2 }, false));
        }
        calls.add(Call.of(log, "u3", 1)); // sees the log charged twice (2 + 2), not three times
        calls.add(new Call(new Policy[] { leaky, counter, gcra }, new String[] { "u4", "u4", "u4" },
                new long[] { 1, 1, 1 }, false));
        calls.add(new Call(new Policy[] { leaky, counter, gcra }, new String[] { "u4", "u4", "u4" },
                new long[] { 1, 1, 1 }, false)); // gcra (shadow) denies, but does not block the others
        calls.add(new Call(new Policy[] { leaky, counter, gcra }, new String[] { "u4", "u4", "u4" },
                new long[] { 1, 1, 1 }, false)); // denied by leaky and counter
        calls.add(Call.of(leaky, "u5", 3)); // above capacity
        return calls;
    }

    @Test
    void aBatchRepliesExactlyWhatTheCallsGetOneByOne() throws Exception {
        long now = Engine.BASE + 7 * Engine.S;
        List<Call> calls = scenario();
        List<long[]> expected = assertBatchMatchesOneByOne(calls, now);
        // sanity: the scenario does deny, all-or-nothing and shadow as the comments say
        assertEquals(0, expected.get(3)[0], "fourth call on a limit of 3");
        assertEquals(0, expected.get(9)[0], "third bucket+log call");
        assertEquals(1, expected.get(12)[0], "a shadow denial does not block");
        assertEquals(0, expected.get(12)[1 + 4 * 2], "the shadow policy itself denied");

        // Redis forgets every script: the batch falls back to EVAL and still replies the same
        Redis batching = Redis.createClient(vertx, options());
        try (RespClient admin = RedisFixture.shared().client()) {
            RedisBackend batched = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options(), 64, 2), scripts, false);
            playBatched(batched, calls, now, Engine.newIdentity()); // connects, loads the batch script
            admin.call("SCRIPT", "FLUSH");
            long evals = Engine.calls(admin, "eval");
            assertSameReplies(expected, playBatched(batched, calls, now, Engine.newIdentity()));
            assertEquals(2, Engine.calls(admin, "eval") - evals, "the lone call's and the batch's EVAL");
        } finally {
            batching.close();
        }
    }

    /**
     * The sliding log keeps its state per run too (size, oldest entry, entries waiting for one ZADD): calls at several
     * instants in one run, going back and forth (each change of instant writes what waits and reads the log afresh),
     * denials whose wait comes from the oldest entry, from an entry stored before the run and from an entry waiting
     * in the run, entries leaving the window, and a cost of 4,500 entries (more than one ZADD can take) get the
     * replies and leave the state of the same calls made one by one.
     */
    @Test
    void aLogAcrossInstantsInOneRunMatchesOneByOne() throws Exception {
        long now = Engine.BASE + 19 * Engine.S;
        long s = Engine.S;
        Policy log = Engine.policy("log-instants", Algorithm.SLIDING_WINDOW_LOG, 4, Duration.ofSeconds(10), 4);
        Policy large = Engine.policy("log-large", Algorithm.SLIDING_WINDOW_LOG, 6000, MINUTE, 6000);
        List<Call> calls = List.of(
                Call.at(0, log, "a", 1), // 1 entry, at 0
                Call.at(0, log, "a", 1), // 2 at 0
                Call.at(s, log, "a", 1), // another instant: 3
                Call.at(s, log, "a", 1), // 4
                Call.at(s, log, "a", 2), // denied: waits for the second oldest (stored before this instant)
                Call.at(s, log, "a", 1), // denied: waits for the oldest
                Call.at(0, log, "a", 1), // back to the first instant, still full
                Call.at(10 * s + s / 2, log, "a", 1), // the two entries at 0 have left: 3 (written at once)
                Call.at(10 * s + s / 2, log, "a", 1), // 4 (waits for the end of the run)
                Call.at(10 * s + s / 2, log, "a", 4), // denied: waits for the fourth oldest, waiting in the run
                Call.at(10 * s + s / 2, log, "a", 5), // above the limit: never
                new Call(new Policy[] { log }, new String[] { "a" }, new long[] { 1 }, true, 10 * s + s / 2), // dry
                Call.at(10 * s + s / 2, log, "a", 1), // denied: waits for the oldest, at 1 s
                Call.at(0, large, "b", 4500), // more entries than one ZADD takes
                Call.at(0, large, "b", 1500), // exactly full
                Call.at(0, large, "b", 1)); // denied
        List<long[]> expected = assertBatchMatchesOneByOne(calls, now);
        assertEquals(List.of(1L, 1L, 1L, 1L, 0L, 0L, 0L, 1L, 1L, 0L, 0L, 0L, 0L, 1L, 1L, 0L),
                expected.stream().map(r -> r[0]).toList(), "the scenario admits and denies as its comments say");
        assertEquals(10_000, Engine.retryMs(expected.get(9), 0), "waits for the entry made at 10.5 s");
        assertEquals(-1, Engine.retryMs(expected.get(10), 0), "cost above the limit: never");
        assertEquals(500, Engine.retryMs(expected.get(12), 0), "waits for the entry made at 1 s");
    }

    /**
     * The window algorithms hold a key's value in a run as its window index and counts: calls at several instants in
     * one run (a full window, the next window where the counter weighs the previous one, a window two later where
     * both start afresh, and back to the first, where the stored window is a later one) get the replies and leave the
     * state of the same calls made one by one.
     */
    @Test
    void windowsAcrossInstantsInOneRunMatchOneByOne() throws Exception {
        long now = Engine.BASE + 20 * Engine.S; // the start of a 10-second window
        long s = Engine.S;
        Policy fixed = Engine.policy("window-instants", Algorithm.FIXED_WINDOW, 3, Duration.ofSeconds(10), 3);
        Policy counter = Engine.policy("counter-instants", Algorithm.SLIDING_WINDOW_COUNTER, 3, Duration.ofSeconds(10), 3);
        List<Call> calls = List.of(
                Call.at(0, fixed, "w", 1),
                Call.at(0, fixed, "w", 1),
                Call.at(0, fixed, "w", 1), // full
                Call.at(0, fixed, "w", 1), // denied
                Call.at(0, counter, "c", 1),
                Call.at(0, counter, "c", 1), // 2 in this window
                Call.at(12 * s, fixed, "w", 1), // the next window: starts at 0
                Call.at(12 * s, counter, "c", 1), // 2 weighted 0.8 + 1 = 2.6
                Call.at(12 * s, counter, "c", 1), // 3.6: denied
                Call.at(35 * s, fixed, "w", 1), // two windows later
                Call.at(35 * s, counter, "c", 1), // the previous window is empty
                Call.at(5 * s, fixed, "w", 1), // back to the first window: the key holds a later one
                Call.at(5 * s, counter, "c", 1));
        List<long[]> expected = assertBatchMatchesOneByOne(calls, now);
        assertEquals(List.of(1L, 1L, 1L, 0L, 1L, 1L, 1L, 1L, 0L, 1L, 1L, 1L, 1L),
                expected.stream().map(r -> r[0]).toList(), "the scenario admits and denies as its comments say");
    }

    /**
     * A log may hold entries later than the instant of a run (left at a later instant, or by a Redis clock that went
     * back): the run's entries are then not the newest, and the oldest entry and the ranks of the waits must come
     * from the log as it is.
     */
    @Test
    void aLogWithEntriesLaterThanTheRunMatchesOneByOne() throws Exception {
        long s = Engine.S;
        Policy log = Engine.policy("log-back", Algorithm.SLIDING_WINDOW_LOG, 3, Duration.ofSeconds(10), 3);
        List<long[]> expected = assertBatchMatchesOneByOne(List.of(
                Call.at(s, log, "c", 1), // alone: an entry at 1 s
                Call.at(0, log, "c", 1), // the run, at 0: admitted, the oldest entry is now this one
                Call.at(0, log, "c", 1), // admitted: full
                Call.at(0, log, "c", 2), // denied: waits for the second oldest, at 0
                Call.at(0, log, "c", 3)), // denied: waits for the third oldest, at 1 s
                Engine.BASE + 23 * Engine.S);
        assertEquals(10_000, Engine.resetMs(expected.get(2), 0), "the oldest entry is the one at 0");
        assertEquals(10_000, Engine.retryMs(expected.get(3), 0));
        assertEquals(11_000, Engine.retryMs(expected.get(4), 0));
    }

    /**
     * One call may name the same log twice (two checks of one policy and key): each check was read before either was
     * charged, as alone, and the run's later decisions on the key see what Redis holds.
     */
    @Test
    void aCallNamingOneLogTwiceMatchesOneByOne() throws Exception {
        Policy log = Engine.policy("log-twice", Algorithm.SLIDING_WINDOW_LOG, 10, MINUTE, 10);
        assertBatchMatchesOneByOne(List.of(
                Call.of(log, "other", 1), // alone, so that the calls below are one run
                Call.of(log, "d", 1), // written at once
                Call.of(log, "d", 1), // waits for the end of the run
                new Call(new Policy[] { log, log }, new String[] { "d", "d" }, new long[] { 3, 1 }, false),
                Call.of(log, "d", 1),
                Call.of(log, "d", 1)), Engine.BASE + 29 * Engine.S);
    }

    /**
     * Plays the calls one by one and then as one lone call and one run of the batch script (on fresh keys), asserts
     * identical replies and identical state left in Redis, and returns the replies.
     */
    private List<long[]> assertBatchMatchesOneByOne(List<Call> calls, long now) throws Exception {
        Redis alone = Redis.createClient(vertx, options());
        Redis batching = Redis.createClient(vertx, options());
        try (RespClient admin = RedisFixture.shared().client()) {
            String aloneRun = Engine.newIdentity();
            List<long[]> expected = playOneByOne(new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options()), scripts, false),
                    calls, now, aloneRun);
            RedisBackend batched = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options(), 64, 2), scripts, false);
            playBatched(batched, calls, now, Engine.newIdentity()); // connects, loads the batch script
            long before = Engine.scriptCalls(admin);
            String batchedRun = Engine.newIdentity();
            assertSameReplies(expected, playBatched(batched, calls, now, batchedRun));
            assertEquals(2, Engine.scriptCalls(admin) - before,
                    "the first call goes alone (nothing in flight), the " + (calls.size() - 1) + " others in one run");
            assertSameState(admin, calls, aloneRun, batchedRun);
            return expected;
        } finally {
            alone.close();
            batching.close();
        }
    }

    /**
     * A burst of identical calls on one key in one run (a hot key: the same policy, cost and instant) is decided as the
     * calls one by one: the buckets and the fixed window charge the admitted ones together and copy the denial to the
     * calls after it, the others decide each admission. For every algorithm, costs 1 and 3 on a limit of 25 with an odd
     * window (a unit of 2.4 s, so bucket times carry fractions): 25 and 8 admissions, remaining counting down, then
     * the same denial (reporting the 0 or 1 unit left); replies and stored state identical to one by one.
     */
    @Test
    void aBurstOnOneKeyIsDecidedAsOneByOne() throws Exception {
        long now = Engine.BASE + 17 * Engine.S + 123_457;
        for (Algorithm a : Algorithm.values()) {
            if (a == Algorithm.CONCURRENCY) {
                continue; // its calls hold leases: never sent in the compact form
            }
            for (long cost : new long[] { 1, 3 }) {
                Policy p = Engine.policy("burst-" + a.configName() + "-" + cost, a, 25, MINUTE, 25);
                List<Call> calls = new ArrayList<>();
                for (int i = 0; i < 41; i++) {
                    calls.add(Call.of(p, "hot", cost));
                }
                List<long[]> replies = assertBatchMatchesOneByOne(calls, now);
                long admitted = 25 / cost;
                for (int i = 0; i < 41; i++) {
                    long[] r = replies.get(i);
                    assertEquals(i < admitted ? 1 : 0, r[0], a + " cost " + cost + ": call " + i);
                    assertEquals(25 - cost * Math.min(i + 1, admitted), Engine.remaining(r, 0),
                            a + " cost " + cost + ": remaining after call " + i);
                }
                assertArrayEquals(replies.get(40), replies.get((int) admitted), a + " cost " + cost + ": one denial");
            }
        }
    }

    /**
     * The client sends identical consecutive calls of a compact run once, and Redis replies once for them: a burst of
     * 40 calls on one key in one run moves less than a quarter of the bytes, each way, of 40 calls on 40 keys of the
     * same length. Bursts between other calls, and a burst crossing from admitted to denied, still get the replies of
     * the calls one by one.
     */
    @Test
    void aBurstIsSentOnceAndRepliedOnce() throws Exception {
        long now = Engine.BASE + 31 * Engine.S;
        Policy p = Engine.policy("burst-bytes", Algorithm.TOKEN_BUCKET, 1000, MINUTE, 1000);
        List<Call> burst = new ArrayList<>();
        List<Call> spread = new ArrayList<>();
        burst.add(Call.of(p, "first", 1)); // goes alone: nothing in flight yet
        spread.add(Call.of(p, "first", 1));
        for (int i = 0; i < 40; i++) {
            burst.add(Call.of(p, "hot-00", 1));
            spread.add(Call.of(p, "key-" + (i < 10 ? "0" : "") + i, 1));
        }
        Redis client = Redis.createClient(vertx, options());
        try (RespClient admin = RedisFixture.shared().client()) {
            RedisBackend batched = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options(), 64, 2), scripts, false);
            playBatched(batched, burst, now, Engine.newIdentity()); // connects, loads the scripts
            long[] first = netBytes(admin);
            long[] before = netBytes(admin); // what asking costs: INFO's own bytes
            playBatched(batched, burst, now, Engine.newIdentity());
            long[] afterBurst = netBytes(admin);
            playBatched(batched, spread, now, Engine.newIdentity());
            long[] afterSpread = netBytes(admin);
            for (int way = 0; way < 2; way++) {
                long asking = before[way] - first[way];
                long burstBytes = afterBurst[way] - before[way] - asking;
                long spreadBytes = afterSpread[way] - afterBurst[way] - asking;
                assertTrue(burstBytes * 4 < spreadBytes, (way == 0 ? "sent" : "replied") + ": " + burstBytes
                        + " bytes for the burst, " + spreadBytes + " for as many calls on as many keys");
            }
        } finally {
            client.close();
        }
        Policy fixed = Engine.policy("burst-mixed", Algorithm.FIXED_WINDOW, 5, MINUTE, 5);
        Policy counter = Engine.policy("burst-counter", Algorithm.SLIDING_WINDOW_COUNTER, 4, MINUTE, 4);
        List<Call> mixed = new ArrayList<>();
        mixed.add(Call.of(fixed, "m", 1));
        for (int i = 0; i < 3; i++) {
            mixed.add(Call.of(fixed, "m", 2)); // 2 + 2 admitted, then denied: m = 2 of 3 after the lone call
        }
        mixed.add(Call.of(counter, "c", 1));
        for (int i = 0; i < 6; i++) {
            mixed.add(Call.of(counter, "c", 1)); // each admitted call's reset its own, then two denials
        }
        mixed.add(Call.of(fixed, "m", 2)); // the same call as before, not next to it: an entry of its own
        mixed.add(Call.of(fixed, "other", 5));
        mixed.add(Call.of(fixed, "other", 5)); // denied from the start: m = 0
        List<long[]> replies = assertBatchMatchesOneByOne(mixed, now);
        assertEquals(List.of(1L, 1L, 1L, 0L, 1L, 1L, 1L, 1L, 0L, 0L, 0L, 0L, 1L, 0L),
                replies.stream().map(r -> r[0]).toList(), "the scenario admits and denies as its comments say");
    }

    /**
     * A burst on a counter key whose previous window still counts gives every admitted call the first call's reset,
     * so its reply says that once, as a token bucket's burst does, instead of one reset per call.
     */
    @Test
    void aCounterBurstWithAPreviousWindowRepliesOneReset() throws Exception {
        long now = Engine.BASE + 33 * Engine.S;
        Policy[] policies = { Engine.policy("burst-prev", Algorithm.SLIDING_WINDOW_COUNTER, 1000, MINUTE, 1000),
                Engine.policy("burst-flat", Algorithm.TOKEN_BUCKET, 1000, MINUTE, 1000) };
        long[] replied = new long[2];
        Redis client = Redis.createClient(vertx, options());
        try (RespClient admin = RedisFixture.shared().client()) {
            RedisBackend batched = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options(), 64, 2), scripts, false);
            for (int round = 0; round < 2; round++) { // the first connects and loads the scripts
                for (int which = 0; which < 2; which++) {
                    Policy p = policies[which];
                    String identity = Engine.newIdentity();
                    playBatched(batched, List.of(Call.of(p, "hot-00", 1)), now - 60 * Engine.S, identity);
                    List<Call> burst = new ArrayList<>();
                    for (int i = 0; i < 41; i++) {
                        burst.add(Call.of(p, "hot-00", 1));
                    }
                    long[] before = netBytes(admin);
                    playBatched(batched, burst, now, identity);
                    replied[which] = netBytes(admin)[1] - before[1];
                }
            }
        } finally {
            client.close();
        }
        assertTrue(replied[0] <= replied[1] + 32,
                "replied " + replied[0] + " bytes for the counter's burst, " + replied[1] + " for the bucket's");
    }

    /**
     * {@code max-batch} bounds the entries of a run, not its calls: identical consecutive calls (a burst on one key)
     * count once, so 40 of them asked for in one turn go in one run where 40 calls on 40 keys go in runs of 4
     * ({@code max-batch} 4), and a burst between other calls joins their run. A call that cannot stand with others
     * as one entry (a dry run) makes its run go call by call, so that run takes at most 4 calls. Each call still gets
     * the reply it gets one by one.
     */
    @Test
    void maxBatchCountsABurstOnOneKeyOnce() throws Exception {
        long now = Engine.BASE + 37 * Engine.S;
        Policy p = Engine.policy("burst-runs", Algorithm.TOKEN_BUCKET, 1000, MINUTE, 1000);
        List<Call> burst = new ArrayList<>();
        List<Call> spread = new ArrayList<>();
        List<Call> mixed = new ArrayList<>();
        for (int i = 0; i <= 40; i++) {
            burst.add(Call.of(p, i == 0 ? "first" : "hot", 1)); // the first goes alone: nothing in flight yet
            spread.add(Call.of(p, "key-" + i, 1));
        }
        mixed.add(Call.of(p, "first", 1));
        mixed.add(Call.of(p, "m0", 1));
        for (int i = 0; i < 30; i++) {
            mixed.add(Call.of(p, "hot", 1)); // the run's second entry: its 30 calls with the others
        }
        mixed.add(Call.of(p, "m1", 1));
        mixed.add(Call.of(p, "m2", 1)); // the fourth entry: the run is full
        mixed.add(Call.of(p, "last", 1)); // a fifth entry: alone, after it
        List<Call> dry = new ArrayList<>();
        dry.add(Call.of(p, "first", 1));
        dry.add(new Call(new Policy[] { p }, new String[] { "peek" }, new long[] { 1 }, true));
        for (int i = 0; i < 10; i++) {
            dry.add(Call.of(p, "hot", 1)); // 3 with the dry run, call by call; then the other 7 as one entry
        }
        Redis client = Redis.createClient(vertx, options());
        try (RespClient admin = RedisFixture.shared().client()) {
            RedisBackend batched = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options(), 4, 1), scripts, false);
            playBatched(batched, List.of(Call.of(p, "warm", 1)), now, Engine.newIdentity()); // connects, loads
            String run = Engine.newIdentity();
            long before = Engine.calls(admin, "evalsha");
            List<long[]> replies = playBatched(batched, burst, now, run);
            assertEquals(2, Engine.calls(admin, "evalsha") - before, "the lone call, then one run of the 40");
            for (int i = 1; i <= 40; i++) {
                assertEquals(1000 - i, Engine.remaining(replies.get(i), 0), "remaining after call " + i + " of the burst");
            }
            before = Engine.calls(admin, "evalsha");
            playBatched(batched, spread, now, Engine.newIdentity());
            assertEquals(11, Engine.calls(admin, "evalsha") - before, "the lone call, then runs of 4 keys");
            before = Engine.calls(admin, "evalsha");
            replies = playBatched(batched, mixed, now, Engine.newIdentity());
            assertEquals(3, Engine.calls(admin, "evalsha") - before, "the lone call, 3 keys and the burst, the last");
            for (int i = 2; i < 32; i++) {
                assertEquals(1000 - (i - 1), Engine.remaining(replies.get(i), 0), "remaining after call " + i);
            }
            before = Engine.calls(admin, "evalsha");
            replies = playBatched(batched, dry, now, Engine.newIdentity());
            assertEquals(3, Engine.calls(admin, "evalsha") - before, "the lone call, the dry run with 3, the other 7");
            for (int i = 2; i < 12; i++) {
                assertEquals(1000 - (i - 1), Engine.remaining(replies.get(i), 0), "remaining after call " + i);
            }
        } finally {
            client.close();
        }
    }

    /** Bytes Redis has read from and written to its clients so far. */
    private static long[] netBytes(RespClient admin) {
        String info = admin.callString("INFO", "stats");
        long[] bytes = new long[2];
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("total_net_input_bytes:")) {
                bytes[0] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            } else if (line.startsWith("total_net_output_bytes:")) {
                bytes[1] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return bytes;
    }

    /**
     * In a batch, a key is read once and written once, whatever the number of decisions on it: 16 decisions on one
     * hot key (the first alone, 15 in one run) cost Redis two reads and two writes (GET and SET; for the sliding log,
     * two trims and two size reads, one read of the oldest entry, and three ZADDs and PEXPIREs: the run's first entry
     * goes at once, the others wait for the end of the run), and leave the state of 16 charges.
     */
    @Test
    void aHotKeyIsReadAndWrittenOncePerBatch() throws Exception {
        long now = Engine.BASE + 13 * Engine.S;
        for (Algorithm a : Algorithm.values()) {
            if (a == Algorithm.CONCURRENCY) {
                continue; // reads its set of leases on every decision: slots come back at any moment
            }
            Policy p = Engine.policy("hot-" + a.configName(), a, 100, MINUTE, 100);
            List<Call> calls = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                calls.add(Call.of(p, "hot", 1));
            }
            Redis client = Redis.createClient(vertx, options());
            try (RespClient admin = RedisFixture.shared().client()) {
                RedisBackend batched = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options(), 64, 2), scripts, false);
                playBatched(batched, calls, now, Engine.newIdentity()); // connects, loads the scripts
                List<String> commands = a == Algorithm.SLIDING_WINDOW_LOG
                        ? List.of("zremrangebyscore", "zcard", "zrange", "zadd", "pexpire")
                        : List.of("get", "set");
                long[] counts = commands.stream().mapToLong(c -> Engine.calls(admin, c)).toArray();
                String run = Engine.newIdentity();
                List<long[]> replies = playBatched(batched, calls, now, run);
                for (int c = 0; c < commands.size(); c++) {
                    // the log's first call finds it empty: no oldest entry to read; in the run, its first entry is
                    // added at once and the 14 others in one ZADD at the end
                    long once = switch (commands.get(c)) {
                        case "zrange" -> 1;
                        case "zadd", "pexpire" -> 3;
                        default -> 2;
                    };
                    assertEquals(once, Engine.calls(admin, commands.get(c)) - counts[c],
                            a + ": " + commands.get(c) + " calls, the lone call's and the batch's");
                }
                for (int i = 0; i < 16; i++) {
                    assertEquals(1, replies.get(i)[0], a + ": call " + i + " admitted");
                    assertEquals(100 - 1 - i, Engine.remaining(replies.get(i), 0), a + ": remaining after call " + i);
                }
                // the state written once at the end of the run is the state of 16 charges
                long[] next = batched.decide(new Policy[] { p }, keys(run, calls.get(0)), new long[] { 1 }, now, true)
                        .await().atMost(Duration.ofSeconds(5)).toScriptOrder();
                assertEquals(100 - 16 - 1, Engine.remaining(next, 0), a + ": a dry run after the batch");
                long ttl = admin.callLong("PTTL", keys(run, calls.get(0))[0]);
                assertTrue(ttl > 0, a + ": the key expires (PTTL " + ttl + ")");
            } finally {
                client.close();
            }
        }
    }

    /**
     * A run whose calls all use one algorithm goes to that algorithm's batch script, which defines nothing else; a run
     * mixing algorithms goes to the script carrying them all. Seen through what Redis caches after forgetting every
     * script: each run falls back to EVAL with the body of the script it was sent with.
     */
    @Test
    void aRunOfOneAlgorithmUsesThatAlgorithmsBatchScript() throws Exception {
        long now = Engine.BASE + 17 * Engine.S;
        Policy bucket = Engine.policy("one-alg-bucket", Algorithm.TOKEN_BUCKET, 100, MINUTE, 100);
        Policy window = Engine.policy("one-alg-window", Algorithm.FIXED_WINDOW, 100, MINUTE, 100);
        List<Call> oneAlgorithm = new ArrayList<>();
        List<Call> mixed = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            oneAlgorithm.add(Call.of(bucket, "k" + i, 1));
            mixed.add(Call.of(i % 2 == 0 ? bucket : window, "k" + i, 1));
        }
        String bucketRuns = scripts.batchForAlgorithm(Algorithm.TOKEN_BUCKET).sha();
        String windowRuns = scripts.batchForAlgorithm(Algorithm.FIXED_WINDOW).sha();
        String anyRuns = scripts.get(LuaScriptRegistry.BATCH).sha();
        Redis client = Redis.createClient(vertx, options());
        try (RespClient admin = RedisFixture.shared().client()) {
            RedisBackend batched = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options(), 64, 2), scripts, false);
            admin.call("SCRIPT", "FLUSH");
            playBatched(batched, oneAlgorithm, now, Engine.newIdentity());
            assertEquals(List.of(1L, 0L, 0L), admin.call("SCRIPT", "EXISTS", bucketRuns, windowRuns, anyRuns),
                    "token-bucket calls only: that algorithm's batch script");
            admin.call("SCRIPT", "FLUSH");
            playBatched(batched, mixed, now, Engine.newIdentity());
            assertEquals(List.of(0L, 0L, 1L), admin.call("SCRIPT", "EXISTS", bucketRuns, windowRuns, anyRuns),
                    "token bucket and fixed window in one run: the script carrying every algorithm");
        } finally {
            client.close();
        }
    }

    /**
     * A call that fails in Redis (here: its key holds a list, left by something else) fails alone, as it would
     * outside a batch; the other calls of its run are decided and get the replies they would get one by one.
     */
    @Test
    void aCallThatFailsInRedisFailsAlone() throws Exception {
        long now = Engine.BASE + 17 * Engine.S;
        List<Call> calls = scenario();
        Redis alone = Redis.createClient(vertx, options());
        Redis batching = Redis.createClient(vertx, options());
        try (RespClient admin = RedisFixture.shared().client()) {
            RedisBackend oneByOne = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options()), scripts, false);
            RedisBackend batched = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options(), 64, 2), scripts, false);
            String aloneRun = Engine.newIdentity();
            String batchedRun = Engine.newIdentity();
            int broken = 8; // the bucket key of the three bucket+log calls (7, 8, 9) in the middle of the run
            for (String run : List.of(aloneRun, batchedRun)) {
                admin.call("RPUSH", keys(run, calls.get(broken))[0], "not a bucket");
            }
            List<Object> expected = new ArrayList<>();
            for (Call c : calls) {
                try {
                    expected.add(oneByOne.decide(c.policies(), keys(aloneRun, c), c.costs(), now, c.dryRun())
                            .await().atMost(Duration.ofSeconds(5)));
                } catch (RuntimeException e) {
                    expected.add(e);
                }
            }
            for (int i = 0; i < calls.size(); i++) {
                assertEquals(i >= 7 && i <= 9, expected.get(i) instanceof RuntimeException,
                        "alone, exactly the calls on the list fail; call " + i + ": " + expected.get(i));
            }
            playBatched(batched, calls, now, Engine.newIdentity()); // connects, loads the scripts
            List<Object> actual = playBatchedOutcomes(batched, calls, now, batchedRun);
            for (int i = 0; i < calls.size(); i++) {
                if (expected.get(i) instanceof RuntimeException) {
                    assertTrue(actual.get(i) instanceof Throwable, "in a batch, call " + i + " fails too: " + actual.get(i));
                    assertTrue(String.valueOf(actual.get(i)).contains("WRONGTYPE"), String.valueOf(actual.get(i)));
                } else {
                    assertTrue(actual.get(i) instanceof BackendReply, "call " + i + " decided: " + actual.get(i));
                    assertEquals(expected.get(i), actual.get(i), "reply to call " + i);
                }
            }
        } finally {
            alone.close();
            batching.close();
        }
    }

    /**
     * A run whose arguments cannot be laid out (a format that fails) fails its calls at once, instead of leaving
     * them to wait for their callers' timeouts; the lone call before it is unaffected.
     */
    @Test
    void aRunThatCannotBeLaidOutFailsItsCallsAtOnce() throws Exception {
        assertRunFailsAtOnce((request, keyCounts, args, tags) -> {
            throw new IllegalStateException("no layout for this run");
        }, "no layout", () -> {
        });
    }

    /**
     * Replies to two runs that come in one read from Redis (paused while they were sent, it answers them together):
     * the second run's callers are answered in an event-loop task of their own, after the tasks the first run's
     * callers scheduled on being answered. Vert.x writes what is sent on a connection during one of its reads only
     * at the end of the read, so answered in the same read the second run's callers would hold back the calls the
     * first run's callers make next, and Redis would wait for them.
     */
    @Test
    void runsRepliedInOneReadAreAnsweredOneTaskEach() throws Exception {
        long now = Engine.BASE + 23 * Engine.S;
        Policy p = Engine.policy("one-read", Algorithm.TOKEN_BUCKET, 100, MINUTE, 100);
        List<Call> calls = new ArrayList<>(); // one alone, then two runs of 4 (on as many keys: a burst on one goes as one)
        for (int i = 0; i < 9; i++) {
            calls.add(Call.of(p, "k" + i, 1));
        }
        Redis client = Redis.createClient(vertx, options());
        try (RespClient admin = RedisFixture.shared().client()) {
            RedisBackend batched = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options(), 4, 1), scripts, false);
            playBatched(batched, calls, now, Engine.newIdentity()); // connects, loads the scripts
            String run = Engine.newIdentity();
            AtomicBoolean firstRunsTaskRan = new AtomicBoolean();
            List<CompletableFuture<Boolean>> secondRun = new ArrayList<>();
            List<CompletableFuture<Object>> answered = new ArrayList<>();
            for (int i = 0; i < calls.size(); i++) {
                answered.add(new CompletableFuture<>());
            }
            long scriptCalls = Engine.scriptCalls(admin);
            long pauseMillis = 1000;
            long pausedAt = System.nanoTime();
            admin.call("CLIENT", "PAUSE", Long.toString(pauseMillis), "ALL");
            CompletableFuture<Long> sentAt = new CompletableFuture<>();
            vertx.getDelegate().getOrCreateContext().runOnContext(v -> {
                for (int i = 0; i < calls.size(); i++) {
                    Call c = calls.get(i);
                    int index = i;
                    CompletableFuture<Object> outcome = answered.get(i);
                    batched.decide(c.policies(), keys(run, c), c.costs(), now, false).subscribe().with(reply -> {
                        if (index >= 1 && index <= 4) {
                            io.vertx.core.Vertx.currentContext().runOnContext(x -> firstRunsTaskRan.set(true));
                        }
                        outcome.complete(index >= 5 ? firstRunsTaskRan.get() : reply);
                    }, outcome::complete);
                }
                sentAt.complete(System.nanoTime());
            });
            // else the runs might reach Redis after the pause, be answered in two reads, and test nothing
            assertTrue(sentAt.get(10, TimeUnit.SECONDS) - pausedAt < TimeUnit.MILLISECONDS.toNanos(pauseMillis) / 2,
                    "the calls were sent well within the pause");
            for (int i = 0; i < calls.size(); i++) {
                Object o = answered.get(i).get(10, TimeUnit.SECONDS);
                if (o instanceof Throwable t) {
                    throw new AssertionError("call " + i + " failed", t);
                }
                if (i >= 5) {
                    assertEquals(Boolean.TRUE, o, "call " + i + " (second run) answered after the first run's callers' tasks");
                }
            }
            assertEquals(3, Engine.scriptCalls(admin) - scriptCalls, "the lone call and two runs");
        } finally {
            client.close();
        }
    }

    /**
     * The callers answered by one run's reply, each making its next call as soon as it has its answer, go in two
     * runs, not one: the first as soon as it holds half the calls in flight, the second at the end of the turn. In
     * one run, Redis would sit idle while this thread answers the callers of a run and gathers their next calls, and
     * this thread while Redis decides them. The runs' sizes are seen by the format that lays them out.
     */
    @Test
    void callersAnsweredTogetherMakeTheirNextCallsInTwoRuns() throws Exception {
        List<Integer> runSizes = new CopyOnWriteArrayList<>();
        BatchFormat recording = (request, keyCounts, args, tags) -> {
            runSizes.add(keyCounts.length);
            onePolicyLayout(request, keyCounts, args);
        };
        String[] args = { Long.toString(Engine.BASE + 29 * Engine.S), "0", "token-bucket", "100", "60000000", "100", "0",
                "1" };
        Redis client = Redis.createClient(vertx, options());
        try {
            LuaScriptExecutor executor = new LuaScriptExecutor(vertx.getDelegate(), options(), 16, 1);
            // cached in Redis beforehand (another test flushes the scripts): a NOSCRIPT retry would lay out a run twice
            executor.preload(List.of(scripts.forAlgorithm(Algorithm.TOKEN_BUCKET), scripts.get(LuaScriptRegistry.BATCH)))
                    .await().atMost(Duration.ofSeconds(5));
            String[] key = { Engine.newKey("next-calls") };
            Supplier<Uni<long[]>> decide = () -> executor.execute(scripts.forAlgorithm(Algorithm.TOKEN_BUCKET),
                    scripts.get(LuaScriptRegistry.BATCH), recording, null, key, args,
                    r -> r.stream().mapToLong(Response::toLong).toArray());
            List<CompletableFuture<Object>> next = new ArrayList<>();
            List<Supplier<Uni<?>>> first = new ArrayList<>();
            first.add(decide::get); // alone: nothing in flight
            for (int i = 0; i < 8; i++) {
                CompletableFuture<Object> outcome = new CompletableFuture<>();
                next.add(outcome);
                // one run of 8, whose callers each make their next call on being answered
                first.add(() -> decide.get().invoke(r -> decide.get().subscribe().with(outcome::complete, outcome::complete)));
            }
            Engine.inOneEventLoopTask(vertx.getDelegate(), first);
            long fewest = 100;
            for (CompletableFuture<Object> o : next) {
                Object reply = o.get(10, TimeUnit.SECONDS);
                assertTrue(reply instanceof long[], "next call decided: " + reply);
                long[] decision = (long[]) reply;
                assertEquals(1, decision[0], "next call admitted");
                fewest = Math.min(fewest, Engine.remaining(decision, 0));
            }
            assertEquals(100 - 17, fewest, "17 charges in all");
            assertEquals(List.of(8, 4, 4), runSizes, "the first run, then the next calls of its callers");
        } finally {
            client.close();
        }
    }

    /**
     * A run that Redis does not know the script of is laid out again for {@code EVAL}; when that second layout fails,
     * the run's calls fail at once too, instead of waiting for their callers' timeouts.
     */
    @Test
    void aRunThatCannotBeLaidOutForEvalFailsItsCallsAtOnce() throws Exception {
        AtomicInteger layouts = new AtomicInteger();
        try (RespClient admin = RedisFixture.shared().client()) {
            assertRunFailsAtOnce((request, keyCounts, args, tags) -> {
                if (layouts.incrementAndGet() > 1) {
                    throw new IllegalStateException("no second layout for this run");
                }
                onePolicyLayout(request, keyCounts, args);
            }, "no second layout", () -> admin.call("SCRIPT", "FLUSH")); // NOSCRIPT: laid out again for EVAL
        }
        assertEquals(2, layouts.get(), "laid out for EVALSHA, then tried for EVAL");
    }

    /**
     * A run's reply is cut into the calls' shares by the format's reply width; a format that cannot tell a call's
     * width fails the run's calls at once, instead of leaving them to their callers' timeouts.
     */
    @Test
    void aRunWhoseReplyCannotBeReadFailsItsCallsAtOnce() throws Exception {
        assertRunFailsAtOnce(new BatchFormat() {
            @Override
            public void write(Request request, int[] keyCounts, String[][] args, Object[] tags) {
                onePolicyLayout(request, keyCounts, args);
            }

            @Override
            public int replyWidth(int keyCount, Object tag) {
                throw new IllegalStateException("no width for this call");
            }
        }, "no width", () -> {
        });
    }

    /**
     * Five calls in one event-loop task with this batch format: the first goes alone and is decided, the four others
     * go as one run and fail with the format's error, at once. {@code before} runs just before the calls are made.
     */
    private void assertRunFailsAtOnce(BatchFormat format, String error, Runnable before) throws Exception {
        String[] args = { Long.toString(Engine.BASE), "0", "token-bucket", "5", "60000000", "5", "0", "1" };
        Redis client = Redis.createClient(vertx, options());
        try {
            LuaScriptExecutor executor = new LuaScriptExecutor(vertx.getDelegate(), options(), 64, 2);
            List<Supplier<Uni<?>>> made = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                made.add(() -> executor.execute(scripts.forAlgorithm(Algorithm.TOKEN_BUCKET),
                        scripts.get(LuaScriptRegistry.BATCH), format, null, new String[] { Engine.newKey("run-layout") },
                        args, r -> r));
            }
            before.run();
            List<Object> outcomes = Engine.inOneEventLoopTask(vertx.getDelegate(), made);
            assertTrue(outcomes.get(0) instanceof Response,
                    "the first call goes alone: " + outcomes.get(0));
            for (int i = 1; i < 5; i++) {
                Object o = outcomes.get(i);
                assertTrue(o instanceof IllegalStateException && ((Throwable) o).getMessage().contains(error),
                        "call " + i + " fails with the format's error: " + o);
            }
        } finally {
            client.close();
        }
    }

    /**
     * batch.lua's layout for calls that all name the one policy their own (lone-script) arguments give: time, mode,
     * then algorithm, limit, window, burst, shadow, cost.
     */
    private static void onePolicyLayout(Request request, int[] keyCounts, String[][] args) {
        String[] p = args[0];
        request.arg(keyCounts.length).arg(1).arg(p[2]).arg(p[3]).arg(p[4]).arg(p[5]).arg(p[6]);
        for (String[] a : args) {
            request.arg(1).arg(a[0]).arg(a[1]).arg(1).arg(a[7]);
        }
    }

    @Test
    void batchingCanBeTurnedOff() throws Exception {
        long now = Engine.BASE + 11 * Engine.S;
        List<Call> calls = scenario();
        Redis client = Redis.createClient(vertx, options());
        try (RespClient admin = RedisFixture.shared().client()) {
            RedisBackend unbatched = new RedisBackend(new LuaScriptExecutor(vertx.getDelegate(), options(), 1, 2), scripts, false);
            playBatched(unbatched, calls, now, Engine.newIdentity());
            long before = Engine.scriptCalls(admin);
            playBatched(unbatched, calls, now, Engine.newIdentity());
            assertEquals(calls.size(), Engine.scriptCalls(admin) - before, "max-batch 1: one script call per decision");
        } finally {
            client.close();
        }
    }

    private static List<long[]> playOneByOne(RedisBackend backend, List<Call> calls, long now, String run) {
        List<long[]> out = new ArrayList<>();
        for (Call c : calls) {
            out.add(backend.decide(c.policies(), keys(run, c), c.costs(), now + c.later(), c.dryRun())
                    .await().atMost(Duration.ofSeconds(5)).toScriptOrder());
        }
        return out;
    }

    /** The replies of the calls made in one event-loop task (see {@link Engine#inOneEventLoopTask}); each must succeed. */
    private List<long[]> playBatched(RedisBackend backend, List<Call> calls, long now, String run) throws Exception {
        List<long[]> out = new ArrayList<>();
        for (Object outcome : playBatchedOutcomes(backend, calls, now, run)) {
            if (outcome instanceof Throwable t) {
                throw new AssertionError("a batched call failed", t);
            }
            out.add(((BackendReply) outcome).toScriptOrder());
        }
        return out;
    }

    /** Each call's reply or failure, in order (see {@link #playBatched}). */
    private List<Object> playBatchedOutcomes(RedisBackend backend, List<Call> calls, long now, String run) throws Exception {
        List<Supplier<Uni<?>>> made = new ArrayList<>();
        for (Call c : calls) {
            made.add(() -> backend.decide(c.policies(), keys(run, c), c.costs(), now + c.later(), c.dryRun()));
        }
        return Engine.inOneEventLoopTask(vertx.getDelegate(), made);
    }

    private static void assertSameReplies(List<long[]> expected, List<long[]> actual) {
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i), actual.get(i), "reply to call " + i + ": expected " + Engine.show(expected.get(i))
                    + ", got " + Engine.show(actual.get(i)));
        }
    }

    /** Every key a batched run left holds what the one-by-one run left, and both expire. */
    private static void assertSameState(RespClient admin, List<Call> calls, String aloneRun, String batchedRun) {
        for (Call c : calls) {
            String[] alone = keys(aloneRun, c);
            String[] batched = keys(batchedRun, c);
            for (int i = 0; i < alone.length; i++) {
                String type = (String) admin.call("TYPE", alone[i]);
                assertEquals(type, admin.call("TYPE", batched[i]), batched[i]);
                Object a = type.equals("zset") ? admin.call("ZRANGE", alone[i], "0", "-1", "WITHSCORES")
                        : admin.call("GET", alone[i]);
                Object b = type.equals("zset") ? admin.call("ZRANGE", batched[i], "0", "-1", "WITHSCORES")
                        : admin.call("GET", batched[i]);
                assertEquals(a, b, "state of " + batched[i] + " against " + alone[i]);
                if (!type.equals("none")) {
                    assertTrue(admin.callLong("PTTL", batched[i]) > 0, batched[i] + " expires");
                }
            }
        }
    }

    private static String[] keys(String run, Call c) {
        String[] keys = new String[c.keyNames().length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = RedisKeys.key(Engine.prefix(), c.policies()[i].name(), run + "-" + c.keyNames()[i]);
        }
        return keys;
    }

    private static RedisOptions options() {
        return new RedisOptions().setConnectionString(RedisFixture.shared().uri()).setMaxPoolSize(4);
    }
}
