package dev.ratelimit.runtime.algorithm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.algorithm.ReferenceModel.Limit;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.policy.CountedOutcomes;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.Policy;

/**
 * Calls that wait ({@code max-wait}) on a bucket policy take turns: charged now, admitted at the instant their units
 * come. Against the {@link ReferenceModel}, at the real magnitude of Redis {@code TIME}: plain calls and waiting calls
 * (each with its own wait allowed) on one key, decided by the in-process engine (which the engine search shows decides
 * as the scripts do, turns included) and by the model, replies identical; then
 * <ul>
 * <li>waiters are served in the order they were charged: each turn comes after the one before it, and after every
 * admission charged before it;</li>
 * <li>none is early: every admission, at its instant (a plain call's when decided, a waiter's at its turn), replayed
 * in time order on a fresh model as a plain call, is admitted;</li>
 * <li>none waits beyond what it allows, and none is denied whose turn came within it.</li>
 * </ul>
 * A unit lasts a whole number of microseconds here, so every turn falls on a whole microsecond the model can be asked
 * at; the engine search covers the rest of the space.
 */
class TurnsInOrderTest {

    private static final String[] BUCKETS = { "token-bucket", "leaky-bucket", "gcra" };
    private static final AtomicLong CASES = new AtomicLong();
    private static final AtomicLong TURNS = new AtomicLong();

    /** One call after {@code gap} µs of {@code cost} units, waiting up to {@code wait} µs (0: a plain call). */
    record Step(long gap, long cost, long allowed) {
        @Override
        public String toString() {
            return "+" + gap + "us cost " + cost + (allowed > 0 ? " waiting up to " + allowed + "us" : "");
        }
    }

    record Case(Limit limit, long start, List<Step> steps) {
        @Override
        public String toString() {
            return "\n  " + limit.algorithm() + " limit=" + limit.limit() + " window=" + limit.windowMicros()
                    + "us burst=" + limit.burst() + " start=EPOCH+" + start + "us\n  " + steps;
        }
    }

    @Test
    void waitersAreServedInOrderNoneEarlyNoneBeyondItsWait() {
        long cases = CASES.get();
        long turns = TURNS.get();
        PropertySearch.check("turns in order", TurnsInOrderTest::generate, TurnsInOrderTest::simpler,
                TurnsInOrderTest::play);
        System.out.println("turns in order: " + (CASES.get() - cases) + " cases, " + (TURNS.get() - turns)
                + " calls admitted at a turn");
        // a search whose waiters never waited would say nothing
        assertTrue(TURNS.get() - turns >= CASES.get() - cases, "fewer turns than cases");
    }

    /** Two waiters behind a full bucket: the second's turn is one unit after the first's, both in time. */
    @Test
    void theSecondWaiterComesOneUnitAfterTheFirst() {
        Limit l = new Limit("token-bucket", 10, 1_000_000, 10, false);
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            steps.add(new Step(0, 1, 0));
        }
        steps.add(new Step(0, 1, 5_000_000));
        steps.add(new Step(1, 1, 5_000_000));
        List<long[]> admitted = play(new Case(l, 0, steps));
        assertEquals(12, admitted.size(), "every call admitted");
        assertEquals(Scenarios.EPOCH + 100_000, admitted.get(10)[0], "the first waiter: one unit after the burst");
        assertEquals(Scenarios.EPOCH + 200_000, admitted.get(11)[0], "the second: one unit after the first");
    }

    static Case generate(Random r) {
        String algorithm = BUCKETS[r.nextInt(BUCKETS.length)];
        long limit = 1 + (r.nextBoolean() ? r.nextInt(10) : r.nextInt(1_000));
        long perUnit = switch (r.nextInt(3)) {
            case 0 -> 1 + r.nextInt(10);
            case 1 -> 1 + r.nextInt(100_000);
            default -> 1 + (long) (r.nextDouble() * 3_600_000_000L / limit);
        };
        long burst = r.nextInt(3) == 0 ? limit : 1 + r.nextInt((int) Math.min(2 * limit, 2_000));
        Limit l = new Limit(algorithm, limit, perUnit * limit, burst, false);
        int n = 1 + r.nextInt(40);
        List<Step> steps = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long gap = switch (r.nextInt(4)) {
                case 0 -> 0;
                case 1 -> r.nextInt((int) Math.min(perUnit * 3 + 1, Integer.MAX_VALUE));
                case 2 -> (long) (r.nextDouble() * l.windowMicros());
                default -> r.nextInt(20);
            };
            long cost = r.nextInt(20) == 0 ? burst + 1 : 1 + (r.nextBoolean() ? 0 : r.nextInt((int) burst));
            long wait = r.nextInt(3) == 0 ? 0
                    : r.nextBoolean() ? 1 + (long) (r.nextDouble() * 3 * l.windowMicros()) : 1 + r.nextInt(1_000);
            steps.add(new Step(gap, cost, wait));
        }
        return new Case(l, r.nextInt(3) == 0 ? 0 : (long) (r.nextDouble() * l.windowMicros()), steps);
    }

    static List<Case> simpler(Case c) {
        List<Case> out = new ArrayList<>();
        List<Step> steps = c.steps();
        int n = steps.size();
        if (n > 1) {
            out.add(new Case(c.limit(), c.start(), steps.subList(0, n / 2)));
            out.add(new Case(c.limit(), c.start(), steps.subList(n / 2, n)));
            for (int i = n - 1; i >= 0; i--) {
                List<Step> fewer = new ArrayList<>(steps);
                fewer.remove(i);
                out.add(new Case(c.limit(), c.start(), fewer));
            }
        }
        if (c.start() != 0) {
            out.add(new Case(c.limit(), 0, steps));
        }
        for (int i = 0; i < n; i++) {
            Step s = steps.get(i);
            if (s.gap() > 0) {
                out.add(with(c, i, new Step(0, s.cost(), s.allowed())));
                out.add(with(c, i, new Step(s.gap() / 2, s.cost(), s.allowed())));
            }
            if (s.cost() > 1) {
                out.add(with(c, i, new Step(s.gap(), 1, s.allowed())));
                out.add(with(c, i, new Step(s.gap(), s.cost() / 2, s.allowed())));
            }
            if (s.allowed() > 1) {
                out.add(with(c, i, new Step(s.gap(), s.cost(), 0)));
                out.add(with(c, i, new Step(s.gap(), s.cost(), s.allowed() / 2)));
            }
        }
        Limit l = c.limit();
        if (l.burst() > 1) {
            out.add(new Case(l.with(l.limit(), l.windowMicros(), l.burst() / 2, false), c.start(), steps));
        }
        if (l.limit() > 1) {
            long perUnit = l.windowMicros() / l.limit();
            long half = l.limit() / 2;
            out.add(new Case(l.with(half, perUnit * half, Math.min(l.burst(), half), false), c.start(), steps));
        }
        return out;
    }

    private static Case with(Case c, int i, Step s) {
        List<Step> steps = new ArrayList<>(c.steps());
        steps.set(i, s);
        return new Case(c.limit(), c.start(), steps);
    }

    /**
     * Plays a case; returns the admissions in the order they were charged, each {instant µs, cost, 1 when a turn}.
     */
    static List<long[]> play(Case c) {
        CASES.incrementAndGet();
        Limit l = c.limit();
        Limit[] limits = { l };
        Policy[] policies = { policy(l) };
        String[] keys = { "k" };
        ReferenceModel model = new ReferenceModel();
        LocalBackend engine = new LocalBackend();
        List<long[]> admitted = new ArrayList<>();
        long now = Scenarios.EPOCH + c.start();
        long lastTurn = Long.MIN_VALUE;
        for (int k = 0; k < c.steps().size(); k++) {
            Step s = c.steps().get(k);
            now += s.gap();
            long[] costs = { s.cost() };
            long[] expected = s.allowed() > 0 ? model.decideInTurn(limits, keys, costs, now, s.allowed())
                    : model.decide(limits, keys, costs, now, false);
            long[] got = engine.decideNow(policies, keys, costs, now, false, null, s.allowed()).toScriptOrder();
            String where = "step " + (k + 1) + " (" + s + ") at EPOCH + " + (now - Scenarios.EPOCH) + "us";
            assertArrayEquals(expected, got, () -> "in process vs model, " + where + ": model "
                    + Arrays.toString(expected) + " vs " + Arrays.toString(got));
            if (expected[0] == 1) {
                boolean turn = expected[3] > 0;
                long at = now;
                if (turn) {
                    Rational exact = model.turnOf("k");
                    at = exact.floor().longValueExact();
                    assertEquals(Rational.of(at), exact, () -> "a turn on a whole microsecond, " + where);
                    long waited = at - now;
                    assertTrue(waited > 0 && waited <= s.allowed(), () -> "a turn within the wait allowed, " + where
                            + ": " + waited + "us");
                    assertEquals((waited + 999) / 1000, expected[3], () -> "the turn's ms, " + where);
                    long previous = lastTurn;
                    assertTrue(at > previous, () -> "a turn after the turn before it (" + previous + "), " + where);
                    TURNS.incrementAndGet();
                }
                long when = at;
                for (long[] before : admitted) {
                    // served in order: a turn comes after every admission charged before it
                    assertTrue(!turn || when >= before[0], () -> "a turn at EPOCH + " + (when - Scenarios.EPOCH)
                            + " before an admission charged earlier (EPOCH + " + (before[0] - Scenarios.EPOCH)
                            + "), " + where);
                }
                if (turn) {
                    lastTurn = at;
                }
                admitted.add(new long[] { at, s.cost(), turn ? 1 : 0 });
            } else if (s.allowed() > 0 && expected[3] >= 0) {
                // denied: its turn would have come later than it may wait
                assertTrue(expected[3] * 1000 >= s.allowed(), () -> "denied a turn within its wait, " + where);
            }
        }
        // none early: every admission, at its instant, is one a plain call would get, in time order
        List<long[]> inTime = new ArrayList<>(admitted);
        inTime.sort(Comparator.comparingLong(a -> a[0])); // stable: charged order among equal instants
        ReferenceModel replay = new ReferenceModel();
        for (long[] a : inTime) {
            long[] r = replay.decide(limits, keys, new long[] { a[1] }, a[0], false);
            assertEquals(1, r[0], () -> "admitted ahead of the policy: cost " + a[1] + (a[2] == 1 ? " at its turn" : "")
                    + " at EPOCH + " + (a[0] - Scenarios.EPOCH) + "us; replay " + Arrays.toString(r) + "; admissions "
                    + describe(inTime));
        }
        return admitted;
    }

    private static String describe(List<long[]> admissions) {
        StringBuilder s = new StringBuilder();
        for (long[] a : admissions) {
            s.append(a[1]).append(a[2] == 1 ? "(turn)" : "").append("@EPOCH+").append(a[0] - Scenarios.EPOCH).append(' ');
        }
        return s.toString().trim();
    }

    private static Policy policy(Limit l) {
        return new Policy("p", Algorithm.fromConfigName(l.algorithm()), l.limit(),
                Duration.ofNanos(l.windowMicros() * 1000), l.burst(), "global", false, FailureMode.FAIL_CLOSED,
                List.of(), List.of(), Duration.ZERO, CountedOutcomes.ALL, false);
    }
}
