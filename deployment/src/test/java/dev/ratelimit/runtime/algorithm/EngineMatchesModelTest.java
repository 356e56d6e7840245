package dev.ratelimit.runtime.algorithm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.algorithm.ReferenceModel.Limit;
import dev.ratelimit.runtime.algorithm.Scenarios.Scenario;
import dev.ratelimit.runtime.algorithm.Scenarios.Step;
import dev.ratelimit.runtime.algorithm.ScriptRunner.Call;
import dev.ratelimit.runtime.backend.KeyOverride;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.policy.CountedOutcomes;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.LimitValues;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyValidator;
import dev.ratelimit.test.redis.RedisFixture;

/**
 * The engine against the {@link ReferenceModel}, over the whole configuration space ({@link Scenarios}). Every call
 * is made on the model, on Redis one call per script run, on Redis in batch runs and on the in-process backend; the
 * four replies must be identical, number for number. The output says how many cases were tried and with which seed;
 * a failure shows the case shrunk to a short configuration and sequence.
 */
class EngineMatchesModelTest {

    private static final AtomicLong CASES = new AtomicLong();
    /** Policies of calls that may wait admitted at a turn (charged now, admitted later). */
    private static final AtomicLong TURNS = new AtomicLong();
    private static ScriptRunner redis;
    /** The same calls as {@link #redis}, as calls of the function library (on keys of their own). */
    private static ScriptRunner functions;

    @BeforeAll
    static void loadScripts() {
        redis = new ScriptRunner(() -> RedisFixture.shared().client());
        functions = new ScriptRunner(() -> RedisFixture.shared().client(), true);
    }

    @AfterAll
    static void close() {
        redis.close();
        functions.close();
    }

    @Test
    void everyBackendDecidesAsTheModelForGeneratedPoliciesAndSequences() {
        long compact = ScriptRunner.COMPACT_RUNS.get();
        long repeated = ScriptRunner.REPEATED_CALLS.get();
        long turns = TURNS.get();
        PropertySearch.check("engine vs model", Scenarios::generate, Scenarios::simpler, EngineMatchesModelTest::play);
        System.out.println("engine vs model: " + (ScriptRunner.COMPACT_RUNS.get() - compact)
                + " batch runs in the compact form, " + (ScriptRunner.REPEATED_CALLS.get() - repeated)
                + " of their calls identical to the one before, " + (TURNS.get() - turns)
                + " policies of waiting calls admitted at a turn");
        // a search that never took a turn would say nothing of them
        org.junit.jupiter.api.Assertions.assertTrue(TURNS.get() - turns > 0, "no call was admitted at a turn");
    }

    /** Plays a scenario on the model and on every backend, comparing each reply with the model's. */
    static void play(Scenario s) {
        long id = CASES.incrementAndGet();
        int n = s.limits().size();
        Limit[] limits = s.limits().toArray(Limit[]::new);
        Policy[] policies = new Policy[n];
        String[] single = new String[n];
        String[] batched = new String[n];
        String[] singleFunction = new String[n];
        String[] batchedFunction = new String[n];
        String[] local = new String[n];
        for (int i = 0; i < n; i++) {
            policies[i] = policy("p" + i, limits[i]);
            single[i] = Engine.prefix() + ":model" + id + ":{s}:p" + i;
            batched[i] = Engine.prefix() + ":model" + id + ":{b}:p" + i;
            singleFunction[i] = Engine.prefix() + ":model" + id + ":{fs}:p" + i;
            batchedFunction[i] = Engine.prefix() + ":model" + id + ":{fb}:p" + i;
            local[i] = "p" + i;
        }
        ReferenceModel model = new ReferenceModel();
        LocalBackend backend = new LocalBackend();
        long now = Scenarios.EPOCH + s.start();
        List<Call> run = new ArrayList<>();
        List<Call> functionRun = new ArrayList<>();
        List<long[]> expectedInRun = new ArrayList<>();
        List<String> describedInRun = new ArrayList<>();
        // the lease of each call charged so far and its costs, for the releases of later steps
        List<String> leases = new ArrayList<>();
        List<long[]> leaseCosts = new ArrayList<>();
        // the reservations admitted so far and not settled: when each was charged, and what each policy charged
        List<long[]> reservations = new ArrayList<>();
        for (int k = 0; k < s.steps().size(); k++) {
            Step st = s.steps().get(k);
            now += st.gap();
            boolean ahead = st.release() >= Scenarios.AHEAD;
            if (st.release() >= 0 && (ahead || !leases.isEmpty())) {
                // a release is not part of a batch run: the run so far goes first
                if (!run.isEmpty()) {
                    compareRun(run, functionRun, expectedInRun, describedInRun);
                }
                int which = ahead ? -1 : st.release() % leases.size();
                // ahead: the lease a later call will be charged with (or never is), released before its charge
                String lease = ahead ? "L" + (k + st.release() - Scenarios.AHEAD) : leases.get(which);
                long[] costs = ahead ? released(st.costs()) : leaseCosts.get(which);
                model.release(limits, local, lease, now);
                redis.release(limits, single, costs, lease, now);
                redis.release(limits, batched, costs, lease, now);
                functions.release(limits, singleFunction, costs, lease, now);
                functions.release(limits, batchedFunction, costs, lease, now);
                backend.releaseNow(policies, local, lease, now);
            } else if (st.newRun() && !run.isEmpty()) {
                compareRun(run, functionRun, expectedInRun, describedInRun);
            }
            KeyOverride change = st.change() == null ? null : override(st.change(), limits, now);
            if (change != null || (st.change() != null && st.change().clear())) {
                // an override is set outside a batch run (the extension sends it alone): the run so far goes first
                if (!run.isEmpty()) {
                    compareRun(run, functionRun, expectedInRun, describedInRun);
                }
                int i = st.change().policy();
                model.override(local[i], change == null ? null
                        : new long[] { change.limit(), change.windowMicros(), change.burst(), change.expiresAtMicros() });
                for (String[] keys : List.of(single, batched, singleFunction, batchedFunction)) {
                    redis.override(keys[i], change);
                }
                backend.rememberOverride(local[i], change);
            }
            long[] costs = st.costs();
            String where = "step " + (k + 1) + " (" + st + ") at EPOCH + " + (now - Scenarios.EPOCH) + "us";
            if (st.settle() >= 0 && !reservations.isEmpty()) {
                // a settlement is not part of a batch run (the extension sends it alone): the run so far goes first
                if (!run.isEmpty()) {
                    compareRun(run, functionRun, expectedInRun, describedInRun);
                }
                long[] r = reservations.remove(st.settle() % reservations.size());
                long at = r[0];
                long[] refunds = new long[n];
                long[] ats = new long[n];
                for (int i = 0; i < n; i++) {
                    // the step's cost is the actual cost: below the estimate a refund, above it a debit; a policy that
                    // charged nothing (a shadow policy that denied) is not settled
                    // plus 0 to 2 capacities (st.settle() % 3), so that debts reach their bound of one capacity;
                    // a log logs a member per unit: its actual costs stay as small as its costs (see Scenarios)
                    long capacity = policies[i].capacity();
                    long actual = costs[i] + (st.settle() % 3) * capacity;
                    if (limits[i].algorithm().equals("sliding-window-log")) {
                        actual = Math.min(actual, Scenarios.MAX_LOG_COST);
                    }
                    refunds[i] = r[1 + i] == 0 ? 0 : r[1 + i] - actual;
                    ats[i] = at;
                }
                // now and then a settlement that only gives back is a leased slice's give-back (mode G): a bucket gets
                // back less the time passed since the charge
                boolean slice = st.settle() / 3 == 1 && Arrays.stream(refunds).allMatch(u -> u >= 0);
                long[] settled = slice ? model.giveBack(limits, local, refunds, at, now)
                        : model.settle(limits, local, refunds, at, now);
                String how = where + ", " + (slice ? "giving back a slice's " : "settling ") + Arrays.toString(refunds)
                        + " (given back) of the reservation at EPOCH + " + (at - Scenarios.EPOCH) + "us";
                for (String[] keys : List.of(single, batched)) {
                    long[] got = redis.single(slice ? Call.giveBack(limits, keys, refunds, at, now)
                            : Call.settlement(limits, keys, refunds, at, now));
                    assertArrayEquals(settled, got, () -> "Redis settlement, " + how + ": model "
                            + Arrays.toString(settled) + " vs " + Arrays.toString(got));
                }
                for (String[] keys : List.of(singleFunction, batchedFunction)) {
                    long[] got = functions.single(slice ? Call.giveBack(limits, keys, refunds, at, now)
                            : Call.settlement(limits, keys, refunds, at, now));
                    assertArrayEquals(settled, got, () -> "Redis function settlement, " + how + ": model "
                            + Arrays.toString(settled) + " vs " + Arrays.toString(got));
                }
                long[] fromLocal = (slice ? backend.giveBackNow(policies, local, refunds, ats, now)
                        : backend.settleNow(policies, local, refunds, ats, now)).toScriptOrder();
                assertArrayEquals(settled, fromLocal, () -> "in-process settlement, " + how + ": model "
                        + Arrays.toString(settled) + " vs " + Arrays.toString(fromLocal));
            }
            // a call names a lease only when it has a concurrency policy, as the extension does
            String lease = hasConcurrency(limits) ? "L" + k : null;
            boolean reserve = st.reserve() && !st.dryRun();
            // a call that may wait takes turns (never with concurrency, which max-wait refuses)
            long turn = lease == null && !reserve && !st.dryRun() ? st.turn() : 0;
            long at = now;
            java.util.function.Function<String[], Call> call = keys -> reserve
                    ? Call.reservation(limits, keys, costs, at, lease)
                    : turn > 0 ? Call.inTurn(limits, keys, costs, at, turn)
                            : new Call(limits, keys, costs, at, st.dryRun(), lease);
            long[] expected = reserve ? model.reserve(limits, local, costs, now, lease)
                    : turn > 0 ? model.decideInTurn(limits, local, costs, now, turn)
                            : model.decide(limits, local, costs, now, st.dryRun(), lease);
            long[] fromRedis = redis.single(call.apply(single));
            assertArrayEquals(expected, fromRedis, () -> "Redis, one call per run, " + where + ": model "
                    + Arrays.toString(expected) + " vs " + Arrays.toString(fromRedis));
            long[] fromFunction = functions.single(call.apply(singleFunction));
            assertArrayEquals(expected, fromFunction, () -> "Redis function, one call per run, " + where + ": model "
                    + Arrays.toString(expected) + " vs " + Arrays.toString(fromFunction));
            long[] fromLocal = (reserve ? backend.reserveNow(policies, local, costs, now, lease)
                    : backend.decideNow(policies, local, costs, now, st.dryRun(), lease, turn)).toScriptOrder();
            assertArrayEquals(expected, fromLocal, () -> "in process, " + where + ": model "
                    + Arrays.toString(expected) + " vs " + Arrays.toString(fromLocal));
            for (int i = 0; turn > 0 && i < n; i++) {
                if (expected[1 + 4 * i] == 1 && expected[3 + 4 * i] > 0) {
                    TURNS.incrementAndGet();
                }
            }
            run.add(call.apply(batched));
            functionRun.add(call.apply(batchedFunction));
            if (reserve && expected[0] != 0) {
                // what each policy charged: nothing where a shadow policy denied
                long[] r = new long[1 + n];
                r[0] = expected[0];
                for (int i = 0; i < n; i++) {
                    r[1 + i] = expected[1 + 4 * i] == 1 ? costs[i] : 0;
                }
                reservations.add(r);
            }
            if (lease != null && expected[0] != 0 && !st.dryRun()) {
                // charged: its slots can be released; a shadow policy that denied took none (and its cost may be one
                // the extension refuses before asking Redis: above the capacity)
                long[] held = costs.clone();
                for (int i = 0; i < n; i++) {
                    if (expected[1 + 4 * i] == 0) {
                        held[i] = 1;
                    }
                }
                leases.add(lease);
                leaseCosts.add(held);
            }
            expectedInRun.add(expected);
            describedInRun.add(where);
        }
        if (!run.isEmpty()) {
            compareRun(run, functionRun, expectedInRun, describedInRun);
        }
        // what is in flight afterwards: the same leases with the same units in the model and on Redis
        for (int i = 0; i < n; i++) {
            if (limits[i].algorithm().equals(Algorithm.CONCURRENCY.configName())) {
                Map<String, Long> expected = model.inFlight(local[i], now);
                for (String[] keys : List.of(single, batched)) {
                    assertEquals(expected, redis.inFlight(keys[i], now), "leases in flight on Redis at the end");
                }
                for (String[] keys : List.of(singleFunction, batchedFunction)) {
                    assertEquals(expected, functions.inFlight(keys[i], now),
                            "leases in flight on Redis (function) at the end");
                }
            }
        }
    }

    /**
     * The costs a release of a call not charged yet names: the extension never sends a cost above a policy's capacity
     * (it refuses such a call before asking Redis), and a tombstone is one member whatever the cost.
     */
    private static long[] released(long[] costs) {
        long[] c = costs.clone();
        for (int i = 0; i < c.length; i++) {
            c[i] = Math.min(c[i], Scenarios.MAX_LOG_COST);
        }
        return c;
    }

    /**
     * The override a change sets at {@code now}, as the extension stores it; null for a clear, or for values the
     * extension refuses for the policy ({@link PolicyValidator#validateOverride}: then nothing changes).
     */
    private static KeyOverride override(Scenarios.Change c, Limit[] limits, long now) {
        if (c.clear() || c.policy() >= limits.length) {
            return null;
        }
        Limit l = limits[c.policy()];
        Algorithm alg = Algorithm.fromConfigName(l.algorithm());
        LimitValues base = new LimitValues(OptionalInt.of((int) l.limit()),
                Optional.of(Duration.ofNanos(l.windowMicros() * 1000)), OptionalInt.of((int) l.burst()));
        LimitValues own = new LimitValues(c.limit() > 0 ? OptionalInt.of((int) c.limit()) : OptionalInt.empty(),
                c.window() > 0 ? Optional.of(Duration.ofNanos(c.window() * 1000)) : Optional.empty(),
                c.burst() > 0 ? OptionalInt.of((int) c.burst()) : OptionalInt.empty());
        List<String> errors = new ArrayList<>();
        PolicyValidator.validateOverride("p", alg, base, own, a -> a, errors);
        if (!errors.isEmpty()) {
            return null;
        }
        return new KeyOverride(c.limit(), c.window(), c.burst(), c.expiresIn() == 0 ? 0 : now + c.expiresIn(), null);
    }

    private static boolean hasConcurrency(Limit[] limits) {
        for (Limit l : limits) {
            if (l.algorithm().equals(Algorithm.CONCURRENCY.configName())) {
                return true;
            }
        }
        return false;
    }

    static Policy policy(String name, Limit l) {
        return new Policy(name, Algorithm.fromConfigName(l.algorithm()), l.limit(),
                Duration.ofNanos(l.windowMicros() * 1000), l.burst(), "global", l.shadow(), FailureMode.FAIL_CLOSED,
                List.of(), List.of(), Duration.ofNanos(l.blockMicros() * 1000), CountedOutcomes.ALL, l.overrides());
    }

    /** Plays a run as a script and, on keys of its own, as a function, comparing each reply with the model's. */
    private static void compareRun(List<Call> run, List<Call> functionRun, List<long[]> expected, List<String> where) {
        compareReplies("Redis, batch run of ", redis.batch(run), expected, where);
        compareReplies("Redis function, batch run of ", functions.batch(functionRun), expected, where);
        run.clear();
        functionRun.clear();
        expected.clear();
        where.clear();
    }

    private static void compareReplies(String how, List<long[]> replies, List<long[]> expected, List<String> where) {
        for (int i = 0; i < replies.size(); i++) {
            long[] e = expected.get(i);
            long[] r = replies.get(i);
            String w = where.get(i);
            assertArrayEquals(e, r, () -> how + replies.size() + ", " + w + ": model " + Arrays.toString(e) + " vs "
                    + Arrays.toString(r));
        }
    }
}
