package dev.ratelimit.runtime.algorithm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.algorithm.ReferenceModel.Limit;
import dev.ratelimit.runtime.algorithm.ScriptRunner.Call;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.test.redis.RedisFixture;

/**
 * One named test per defect the reference model and the first users found, each on Redis (one call per run and batch
 * runs) and in process. Each failed before the engine kept its state exactly.
 */
class ExactnessDefectsTest {

    private static final long S = 1_000_000;
    private static final long MINUTE = 60 * S;
    /** A multiple of every window used here, plus half a minute: mid-window for the window algorithms. */
    private static final long T = Scenarios.EPOCH + 30 * S;
    private static final AtomicLong KEYS = new AtomicLong();
    private static final String[] BUCKETS = { "token-bucket", "leaky-bucket", "gcra" };
    private static ScriptRunner redis;

    @BeforeAll
    static void loadScripts() {
        redis = new ScriptRunner(() -> RedisFixture.shared().client());
    }

    @AfterAll
    static void close() {
        redis.close();
    }

    private static String key() {
        return Engine.prefix() + ":defects:{" + KEYS.incrementAndGet() + "}:p";
    }

    /** Decides one policy on Redis (one run per call) and in process, which must agree; returns the reply. */
    private static long[] both(Limit l, String key, LocalBackend local, long cost, long now) {
        long[] r = redis.single(new Call(new Limit[] { l }, new String[] { key }, new long[] { cost }, now, false));
        if (now != ScriptRunner.REDIS_TIME) {
            long[] p = local.decideNow(new Policy[] { EngineMatchesModelTest.policy("p", l) }, new String[] { key },
                    new long[] { cost }, now, false).toScriptOrder();
            assertArrayEquals(r, p, () -> "Redis " + Arrays.toString(r) + " vs in process " + Arrays.toString(p));
        }
        return r;
    }

    /**
     * A bucket of burst 1 was read a hair under one unit at the magnitude of Redis TIME (its cap was computed as an
     * absolute time, now - burst * window / limit), so a request costing the whole capacity was denied forever: 110
     * of the limits 1..200 per second did so.
     */
    @Test
    void anIdleBucketOfBurstOneAdmitsItsRequestAtEveryRateOnRedisTime() {
        List<String> denied = new ArrayList<>();
        for (String alg : BUCKETS) {
            for (long window : new long[] { S, MINUTE, 60 * MINUTE }) {
                for (long limit = 1; limit <= 200; limit++) {
                    Limit l = new Limit(alg, limit, window, 1, false);
                    long[] r = redis.single(new Call(new Limit[] { l }, new String[] { key() }, new long[] { 1 },
                            ScriptRunner.REDIS_TIME, false));
                    long[] p = new LocalBackend().decideNow(new Policy[] { EngineMatchesModelTest.policy("p", l) },
                            new String[] { "k" }, new long[] { 1 }, RateLimitBackend.BACKEND_CLOCK, false).toScriptOrder();
                    if (r[0] != 1 || p[0] != 1) {
                        denied.add(alg + " " + limit + "/" + window + "us (redis " + r[0] + ", local " + p[0] + ")");
                    }
                }
            }
        }
        assertEquals(List.of(), denied, "fresh keys that denied their first request");
    }

    /** The issue's own example, at a fixed instant of today's magnitude: 3 per second, burst 1. */
    @Test
    void threePerSecondWithBurstOneAdmitsOneThenWaitsAThirdOfASecond() {
        for (String alg : BUCKETS) {
            Limit l = new Limit(alg, 3, S, 1, false);
            String key = key();
            LocalBackend local = new LocalBackend();
            long now = Scenarios.EPOCH + 123_457;
            assertArrayEquals(new long[] { 1, 1, 0, 0, 334 }, both(l, key, local, 1, now), alg);
            assertArrayEquals(new long[] { 0, 0, 0, 334, 334 }, both(l, key, local, 1, now), alg);
            assertEquals(0, both(l, key, local, 1, now + 333_333)[0], alg + ": a third of a microsecond early");
            assertEquals(1, both(l, key, local, 1, now + 333_334)[0], alg);
        }
    }

    /**
     * Charges under a microsecond per unit were rounded away: at 10,000,000 per second, 1,000 charges at one instant
     * left the state unchanged, and at 3,000,000 per second a quarter of them vanished.
     */
    @Test
    void chargesOfAFractionOfAMicrosecondAreAllCounted() {
        for (String alg : BUCKETS) {
            for (long[] rate : new long[][] { { 10_000_000, S }, { 3_000_000, S }, { 10_000, 1_000 } }) {
                Limit l = new Limit(alg, rate[0], rate[1], rate[0], false);
                String key = key();
                LocalBackend local = new LocalBackend();
                long[] last = null;
                for (int i = 0; i < 1_000; i++) {
                    last = both(l, key, local, 1, T);
                }
                assertEquals(rate[0] - 1_000, last[2], alg + " at " + rate[0] + " per " + rate[1] + "us");
                List<Call> run = new ArrayList<>();
                String batched = key();
                for (int i = 0; i < 1_000; i++) {
                    run.add(new Call(new Limit[] { l }, new String[] { batched }, new long[] { 1 }, T, false));
                }
                List<long[]> replies = redis.batch(run);
                assertEquals(rate[0] - 1_000, replies.get(999)[2], alg + " in one batch run");
            }
        }
    }

    /**
     * The counter's estimate, prev * x / window, is rounded and compared directly while prev * x stays below 2^53 and
     * by split products beyond. With a window of about a day, previous counts on both sides of 2^53 / window (about
     * 104,250) put the products on both sides; at instants where the estimate is a whole number, just below and just
     * above it, and where the product reaches 2^53, every reply (a charge, a denial, a charge beside another policy,
     * whose reset is the uncharged one, and a dry run) must equal the exact model's on Redis and in process. The window,
     * a day less 99 ms, makes 7/9 of it a whole estimate for 9,999,999 that doubles round to the next unit.
     */
    @Test
    void theCounterIsExactOnBothSidesOfTwoToThe53() {
        long day = 86_399_901_000L;
        long start = (Scenarios.EPOCH / day + 1) * day;
        Limit counter = new Limit("sliding-window-counter", 10_000_000, day, 10_000_000, false);
        Limit roomy = new Limit("fixed-window", 100, MINUTE, 100, false);
        List<String> wrong = new ArrayList<>();
        for (long prev : new long[] { 3, 104_249, 104_250, 9_999_999 }) {
            // x microseconds left in the window: where prev * x / day is whole and around it, where prev * x
            // reaches 2^53, and at the window's first and last microseconds
            long g = gcd(prev, day);
            long whole = day / g;
            long exact = ((1L << 53) - 1) / prev;
            LongStream wholes = LongStream.rangeClosed(1, Math.min(g, 9)).flatMap(j -> LongStream.of(j * whole - 1,
                    j * whole, j * whole + 1));
            for (long x : LongStream.concat(LongStream.of(day, day - 1, exact, exact + 1, 1), wholes)
                    .filter(x -> x >= 1 && x <= day).distinct().toArray()) {
                String key = key();
                String other = key();
                ReferenceModel model = new ReferenceModel();
                LocalBackend local = new LocalBackend();
                long now = start + 2 * day - x;
                String at = "prev " + prev + ", x " + x;
                matchModel(wrong, at, model, local, new Limit[] { counter }, new String[] { key }, start + 5, false, prev);
                matchModel(wrong, at, model, local, new Limit[] { counter }, new String[] { key }, now, false, 1);
                matchModel(wrong, at, model, local, new Limit[] { counter }, new String[] { key }, now, false, 10_000_000);
                matchModel(wrong, at, model, local, new Limit[] { counter, roomy }, new String[] { key, other }, now,
                        false, 2, 1);
                matchModel(wrong, at, model, local, new Limit[] { counter }, new String[] { key }, now, true, 1);
            }
        }
        assertEquals(List.of(), wrong);
    }

    /**
     * A bucket's available units, k * window <= burst * window - ((a - now) * limit + b), are divided directly while
     * burst * window + window stays below 2^53 and by the integer test beyond. A burst charged whole at t0 leaves the
     * bucket full at t0 + window; at t0 + window - D, with D * limit one more than a multiple of the window (D the
     * inverse of limit modulo window), the units that fit are a whole number less 1/window, which doubles round up
     * at a day's window and ten million a day. Each bucket algorithm, just before, at and after that instant, at burst
     * sizes on both sides of the 2^53 boundary, must equal the exact model on Redis and in process.
     */
    @Test
    void aBucketIsExactOnBothSidesOfTwoToThe53() {
        long day = 24 * 60 * MINUTE;
        List<String> wrong = new ArrayList<>();
        for (String alg : BUCKETS) {
            for (long limit : new long[] { 9_999_991, 104_243, 104_249, 7_777_777 }) {
                if (gcd(limit, day) != 1) {
                    throw new IllegalStateException(limit + " shares a factor with a day");
                }
                long d = BigInteger.valueOf(limit).modInverse(BigInteger.valueOf(day)).longValueExact();
                Limit l = new Limit(alg, limit, day, limit, false);
                for (long t : new long[] { day - d - 1, day - d, day - d + 1 }) {
                    String key = key();
                    ReferenceModel model = new ReferenceModel();
                    LocalBackend local = new LocalBackend();
                    String at = alg + " " + limit + " per day, " + t + " us after the whole burst";
                    matchModel(wrong, at, model, local, new Limit[] { l }, new String[] { key }, T, false, limit);
                    matchModel(wrong, at, model, local, new Limit[] { l }, new String[] { key }, T + t, true, 1);
                    matchModel(wrong, at, model, local, new Limit[] { l }, new String[] { key }, T + t, false, limit);
                    matchModel(wrong, at, model, local, new Limit[] { l }, new String[] { key }, T + t, false, 1);
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    /**
     * Decides one call of the given policies on the model, on Redis (one run) and in
     * process; adds to {@code wrong} where either differs from the model. {@code costs}: one per policy.
     */
    private static void matchModel(List<String> wrong, String at, ReferenceModel model, LocalBackend local, Limit[] ls,
            String[] keys, long now, boolean dry, long... costs) {
        long[] expected = model.decide(ls, keys, costs, now, dry);
        long[] onRedis = redis.single(new Call(ls, keys, costs, now, dry));
        Policy[] policies = new Policy[ls.length];
        for (int i = 0; i < ls.length; i++) {
            policies[i] = EngineMatchesModelTest.policy("p" + i, ls[i]);
        }
        long[] inProcess = local.decideNow(policies, keys, costs, now, dry).toScriptOrder();
        String call = at + ", costs " + Arrays.toString(costs) + (dry ? " (dry)" : "");
        if (!Arrays.equals(expected, onRedis)) {
            wrong.add(call + ": Redis " + Arrays.toString(onRedis) + ", model " + Arrays.toString(expected));
        }
        if (!Arrays.equals(expected, inProcess)) {
            wrong.add(call + ": in process " + Arrays.toString(inProcess) + ", model " + Arrays.toString(expected));
        }
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /**
     * Changing a policy's algorithm while its keys lived made 17 of the 30 ordered pairs fail every decision
     * ({@code WRONGTYPE}, Lua errors) until the key expired. Now a key holding another algorithm's state counts the
     * units it holds, so old and new deploys alternating on one key admit exactly the limit between them. (A
     * {@code concurrency} policy never shares a key with these: its keys are apart, see ConcurrencyScenarios.)
     */
    @Test
    void everyOrderedPairOfAlgorithmsSharesALiveKeyWithoutFailingOrOverAdmitting() {
        List<String> wrong = new ArrayList<>();
        for (Algorithm a : Algorithm.values()) {
            for (Algorithm b : Algorithm.values()) {
                if (a == b || a == Algorithm.CONCURRENCY || b == Algorithm.CONCURRENCY) {
                    continue;
                }
                Limit old = new Limit(a.configName(), 10, MINUTE, 10, false);
                Limit updated = new Limit(b.configName(), 10, MINUTE, 10, false);
                String pair = a.configName() + " -> " + b.configName();
                // on Redis one call per run, and in process
                String key = key();
                LocalBackend local = new LocalBackend();
                long admitted = 0;
                for (int i = 0; i < 3; i++) {
                    admitted += both(old, key, local, 1, T)[0];
                }
                long[] first = both(updated, key, local, 1, T);
                if (first[0] != 1 || first[2] != 6) {
                    wrong.add(pair + ": after 3 units the new algorithm replied " + Arrays.toString(first));
                }
                admitted += first[0];
                for (int i = 0; i < 16; i++) {
                    admitted += both(i % 2 == 0 ? old : updated, key, local, 1, T)[0];
                }
                if (admitted != 10) {
                    wrong.add(pair + ": old and new alternating admitted " + admitted + " of a limit of 10");
                }
                // on Redis in batch runs, one per deploy's turn
                String batched = key();
                long inRuns = 0;
                for (int turn = 0; turn < 8; turn++) {
                    Limit l = turn % 2 == 0 ? old : updated;
                    List<Call> run = new ArrayList<>();
                    for (int i = 0; i < 2; i++) {
                        run.add(new Call(new Limit[] { l }, new String[] { batched }, new long[] { 1 }, T, false));
                    }
                    for (long[] r : redis.batch(run)) {
                        inRuns += r[0];
                    }
                }
                if (inRuns != 10) {
                    wrong.add(pair + ": batch runs alternating admitted " + inRuns + " of a limit of 10");
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    /**
     * New limits, windows and bursts between deploys: a bucket keeps the time its admitted units take to drain (at a
     * new rate that time is worth more or fewer units); a window keeps its count while the window is the same.
     */
    @Test
    void changedLimitsWindowsAndBurstsKeepTheirMeaning() {
        for (String alg : BUCKETS) {
            String key = key();
            LocalBackend local = new LocalBackend();
            // 5 units at 10 per minute: 30 s to drain
            for (int i = 0; i < 5; i++) {
                both(new Limit(alg, 10, MINUTE, 10, false), key, local, 1, T);
            }
            // at 20 per minute those 30 s are 10 units: 10 of 20 left, 9 after this one
            assertArrayEquals(new long[] { 1, 1, 9, 0, 3_000 }, both(new Limit(alg, 20, MINUTE, 20, false), key, local,
                    1, T), alg);
            // a burst of 12 at the same rate: 33 s of drain is 11 units, 1 left
            assertArrayEquals(new long[] { 0, 0, 1, 3_000, 3_000 }, both(new Limit(alg, 20, MINUTE, 12, false), key,
                    local, 2, T), alg);
        }
        for (String alg : new String[] { "fixed-window", "sliding-window-counter" }) {
            String key = key();
            LocalBackend local = new LocalBackend();
            for (int i = 0; i < 5; i++) {
                both(new Limit(alg, 10, MINUTE, 10, false), key, local, 1, T);
            }
            // the same window: its count carries over to the new limit
            assertEquals(14, both(new Limit(alg, 20, MINUTE, 20, false), key, local, 1, T)[2], alg);
            // another window length: another window, counted afresh
            assertEquals(19, both(new Limit(alg, 20, 7 * MINUTE, 20, false), key, local, 1, T)[2], alg);
        }
        String key = key();
        LocalBackend local = new LocalBackend();
        for (int i = 0; i < 5; i++) {
            both(new Limit("sliding-window-log", 10, MINUTE, 10, false), key, local, 1, T);
        }
        // the log's entries count under any limit and window that still covers them
        assertEquals(14, both(new Limit("sliding-window-log", 20, 2 * MINUTE, 20, false), key, local, 1, T)[2]);
        assertTrue(both(new Limit("sliding-window-log", 6, MINUTE, 6, false), key, local, 1, T)[0] == 0,
                "6 entries logged: a limit of 6 admits no more");
    }

    /**
     * Called as a function, the batch's definitions and their state live from one call to the next (see begin_run in
     * the prelude): a run must read a key afresh, not what the run before it wrote. The key is deleted between two
     * runs, and (another key) charged by a lone call between two runs: each later run sees the key as Redis has it.
     * Every algorithm that reads and writes a string key, in compact runs (one entry of several calls) and in runs of
     * two entries. (Caught a draft that kept the run's tables between calls and forgot to empty one.)
     */
    @Test
    void aRunOfTheFunctionLibraryReadsWhatAnotherCallChangedSinceTheRunBefore() {
        try (ScriptRunner functions = new ScriptRunner(() -> RedisFixture.shared().client(), true)) {
            for (String alg : new String[] { "fixed-window", "sliding-window-counter", "token-bucket", "leaky-bucket",
                    "gcra" }) {
                Limit l = new Limit(alg, 100, MINUTE, 100, false);
                Limit[] ls = { l };
                for (int entries = 1; entries <= 2; entries++) {
                    String deleted = key();
                    String other = key();
                    List<Call> run = new ArrayList<>();
                    for (int i = 0; i < 3; i++) {
                        run.add(new Call(ls, new String[] { deleted }, new long[] { 1 }, T, false));
                    }
                    if (entries == 2) {
                        run.add(new Call(ls, new String[] { other }, new long[] { 1 }, T, false));
                    }
                    functions.batch(run);
                    functions.redis().call("DEL", deleted);
                    List<long[]> again = functions.batch(run);
                    assertEquals(99, Engine.remaining(again.get(0), 0),
                            alg + ", " + entries + " entries: the deleted key is read afresh, full again");
                    functions.single(new Call(ls, new String[] { other }, new long[] { 5 }, T, false));
                    if (entries == 2) {
                        List<long[]> third = functions.batch(run);
                        assertEquals(100 - 1 - 1 - 5 - 1, Engine.remaining(third.get(3), 0),
                                alg + ": the key a lone call charged since is read with that charge");
                    }
                }
            }
        }
    }
}
