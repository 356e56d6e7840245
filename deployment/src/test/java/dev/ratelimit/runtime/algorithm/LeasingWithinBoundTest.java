package dev.ratelimit.runtime.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.runtime.algorithm.ReferenceModel.Limit;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.leasing.QuotaLeases;
import dev.ratelimit.runtime.leasing.QuotaLeases.Ask;
import dev.ratelimit.runtime.leasing.QuotaLeases.Ending;
import dev.ratelimit.runtime.policy.CountedOutcomes;
import dev.ratelimit.runtime.policy.FailureMode;
import dev.ratelimit.runtime.policy.Policy;

/**
 * Quota leasing ({@code lease}) against the {@link ReferenceModel}: two instances, each with its own
 * {@link QuotaLeases}, share one store (the in-process engine, which the engine-vs-model search shows decides as the
 * Redis scripts do) and call one key at instants at the real magnitude of Redis {@code TIME}, as the limiter does:
 * from a live slice, by asking a slice (a reservation), or alone; slices end used up, at their life's end (the
 * periodic sweep) or when asked past it, and give back what they did not use. Every admission, replayed at its
 * instant on the model with the stated bound added, must be admitted: for the window algorithms the exact policy
 * itself, for the buckets one whose capacity is larger by the most units leased out and unused at once across both
 * instances (the refill rate unchanged).
 */
class LeasingWithinBoundTest {

    private static final String[] LEASABLE = { "token-bucket", "leaky-bucket", "gcra", "fixed-window",
            "sliding-window-counter" };

    /** One call: after {@code gap} µs, on instance {@code instance}, of {@code cost}; or a sweep of that instance. */
    record Step(long gap, int instance, long cost, boolean sweep) {
        @Override
        public String toString() {
            return sweep ? "+" + gap + "us sweep@" + instance : "+" + gap + "us " + cost + "@" + instance;
        }
    }

    record Case(Limit limit, long lease, long start, List<Step> steps) {
        @Override
        public String toString() {
            StringBuilder s = new StringBuilder();
            s.append("\n  ").append(limit.algorithm()).append(" limit=").append(limit.limit()).append(" window=")
                    .append(limit.windowMicros()).append("us burst=").append(limit.burst()).append(" lease=")
                    .append(lease == Policy.LEASE_AUTO ? "auto" : String.valueOf(lease)).append(" start=EPOCH+")
                    .append(start).append("us\n  ").append(steps);
            return s.toString();
        }
    }

    /** Cases played and those with an admission from a slice; admissions from slices. */
    private static final java.util.concurrent.atomic.AtomicLong CASES = new java.util.concurrent.atomic.AtomicLong();
    private static final java.util.concurrent.atomic.AtomicLong LEASING_CASES = new java.util.concurrent.atomic.AtomicLong();
    private static final java.util.concurrent.atomic.AtomicLong FROM_SLICES = new java.util.concurrent.atomic.AtomicLong();

    @Test
    void everyLeasedAdmissionIsWithinTheStatedBound() {
        long cases = CASES.get();
        long leasing = LEASING_CASES.get();
        long fromSlices = FROM_SLICES.get();
        PropertySearch.check("leasing within its bound", LeasingWithinBoundTest::generate,
                LeasingWithinBoundTest::simpler, LeasingWithinBoundTest::play);
        long played = CASES.get() - cases;
        long withSlices = LEASING_CASES.get() - leasing;
        System.out.printf("leasing within its bound: %d of %d cases admitted from slices, %d admissions from slices%n",
                withSlices, played, FROM_SLICES.get() - fromSlices);
        // the property says nothing of a search that never leases
        assertTrue(withSlices * 4 >= played, () -> "only " + withSlices + " of " + played + " cases leased");
    }

    /**
     * The bound is reached for the buckets: instance 0 takes a slice of a hot key (its 8th call within 100 ms takes
     * 8 units, the slices of auto being at most a tenth of the capacity of 100), the bucket refills within the slice's
     * life, instance 1 takes the whole capacity in Redis, and instance 0 then uses the 7 units its slice still holds: 7
     * admitted beyond the exact policy at that instant, as many as were leased out and unused.
     */
    @Test
    void aSliceUsedAfterTheBucketRefilledGoesBeyondTheExactPolicyByItsUnusedUnits() {
        // 1,000 per 100 ms (refills its capacity of 100 in 10 ms); auto: slices of at most 10
        Limit bucket = new Limit("token-bucket", 1_000, 100_000, 100, false);
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            steps.add(new Step(0, 0, 1, false));
        }
        steps.add(new Step(20_000, 1, 100, false));
        for (int i = 0; i < 7; i++) {
            steps.add(new Step(0, 0, 1, false));
        }
        Outcome o = run(new Case(bucket, Policy.LEASE_AUTO, 0, steps));
        assertEquals(7, o.mostUnused(), "the slice, 8 units, one used at once");
        assertEquals(7, o.beyondExact(), "beyond the exact policy by the slice's unused units, and no more");
    }

    /**
     * A fixed window's slice ends with its window: instance 0 takes a slice 20 ms before the window ends (8 units, one
     * used), instance 1 takes the next window's whole limit in Redis at its start, and instance 0's next calls go to
     * Redis and are denied. A slice living on into the next window would admit its 7 units there, beyond the limit.
     */
    @Test
    void aFixedWindowSliceNeverCrossesItsWindow() {
        Limit window = new Limit("fixed-window", 80, 1_000_000, 80, false);
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            steps.add(new Step(0, 0, 1, false));
        }
        steps.add(new Step(21_000, 1, 80, false)); // 1 ms into the next window
        for (int i = 0; i < 7; i++) {
            steps.add(new Step(0, 0, 1, false));
        }
        Outcome o = run(new Case(window, Policy.LEASE_AUTO, 1_000_000 - 20_000, steps));
        assertEquals(7, o.mostUnused(), "a slice of 8 was taken, one unit used");
        assertEquals(0, o.beyondExact(), "nothing beyond the limit in the next window");
    }

    /**
     * Found by the search (seed -6604912981761464068, shrunk): instance 1's slice of a fast leaky bucket (57 units,
     * refilling in 3.7 ms) expires unused, the bucket refills, instance 0 empties it in Redis, and only then does
     * instance 1 call again and give its 19 unused units back. Moved back by those 19 units' time, whenever the slice
     * was charged, the bucket then admitted 18 units it had already refilled once: 75 within 50 µs, beyond its
     * capacity plus the 19 ever leased out and unused at once. A give-back now counts the time passed since the
     * charge, so what has refilled since is not given twice.
     */
    @Test
    void aSliceGivenBackAfterTheBucketRefilledGivesNothingTwice() {
        Limit leaky = new Limit("leaky-bucket", 110, 7_134, 57, false);
        long[][] calls = { { 149_586, 17, 1 }, { 0, 1, 0 }, { 0, 16, 0 }, { 0, 1, 0 }, { 0, 1, 1 }, { 0, 1, 0 },
                { 2_276, 1, 0 }, { 24, 8, 0 }, { 0, 1, 1 }, { 0, 1, 1 }, { 263_090, 17, 0 }, { 0, 1, 0 }, { 1_478, 1, 0 },
                { 0, 1, 0 }, { 0, 1, 0 }, { 26, 57, 0 }, { 50, 18, 1 } };
        List<Step> steps = new ArrayList<>();
        for (long[] c : calls) {
            steps.add(new Step(c[0], (int) c[2], c[1], false));
        }
        run(new Case(leaky, 25, 0, steps)); // fails naming the admission beyond the bound
    }

    private record Outcome(long mostUnused, long beyondExact) {
    }

    static void play(Case c) {
        run(c);
    }

    private static Outcome run(Case c) {
        Limit l = c.limit();
        Policy policy = new Policy("leased", Algorithm.fromConfigName(l.algorithm()), l.limit(),
                Duration.ofNanos(l.windowMicros() * 1000), l.burst(), "global", false, FailureMode.FAIL_CLOSED,
                List.of(), List.of(), Duration.ZERO, CountedOutcomes.ALL, false, c.lease());
        Policy[] ps = { policy };
        String key = "k";
        String[] keys = { key };
        LocalBackend store = new LocalBackend();
        long[] now = { Scenarios.EPOCH + c.start() };
        QuotaLeases[] instances = { new QuotaLeases(1_000, () -> now[0] * 1000),
                new QuotaLeases(1_000, () -> now[0] * 1000) };
        List<long[]> admitted = new ArrayList<>();
        List<String> how = new ArrayList<>();
        long fromSlices = 0;
        long mostUnused = 0;
        int k = 0;
        for (Step st : c.steps()) {
            k++;
            now[0] += st.gap();
            QuotaLeases leases = instances[st.instance()];
            if (st.sweep()) {
                for (Ending e : leases.sweep()) {
                    settle(store, e, now[0]);
                }
                continue;
            }
            long cost = st.cost();
            Ask ask = leases.ask(policy, key, cost);
            if (ask.ending() != null) {
                settle(store, ask.ending(), now[0]);
            }
            String where = "step " + k + " (" + st + ") at EPOCH+" + (now[0] - Scenarios.EPOCH) + "us";
            if (ask.decided() != null) {
                admitted.add(new long[] { now[0], cost });
                how.add(where + " from a slice");
                fromSlices++;
            } else {
                PolicyDecision granted = null;
                if (ask.slice() > 0) {
                    assertTrue(ask.slice() >= Math.max(8, 2 * cost) && ask.slice() <= policy.leaseMost(),
                            () -> "a slice of " + ask.slice() + " for a cost of " + cost);
                    BackendReply reply = store.reserveNow(ps, keys, new long[] { ask.slice() }, now[0], null);
                    granted = leases.granted(policy, key, ask.slice(), cost, reply, now[0] * 1000);
                    if (granted != null) {
                        admitted.add(new long[] { now[0], cost });
                        how.add(where + " taking a slice of " + ask.slice());
                    }
                }
                if (granted == null) {
                    BackendReply reply = store.decideNow(ps, keys, new long[] { cost }, now[0], false, null);
                    leases.observed(ask, reply.remaining(0));
                    if (reply.allAdmitted()) {
                        admitted.add(new long[] { now[0], cost });
                        how.add(where + " alone");
                    }
                }
            }
            mostUnused = Math.max(mostUnused, instances[0].unusedUnits() + instances[1].unusedUnits());
        }
        CASES.incrementAndGet();
        if (fromSlices > 0) {
            LEASING_CASES.incrementAndGet();
            FROM_SLICES.addAndGet(fromSlices);
        }
        // the bound: none for the window algorithms; for the buckets, the most units unused in slices at once
        boolean bucket = policy.algorithm().usesBurst();
        long bound = bucket ? mostUnused : 0;
        ReferenceModel exact = new ReferenceModel();
        ReferenceModel bounded = new ReferenceModel();
        Limit exactLimit = new Limit(l.algorithm(), l.limit(), l.windowMicros(), l.burst(), false);
        Limit boundedLimit = new Limit(l.algorithm(), l.limit(), l.windowMicros(), l.burst() + bound, false);
        long beyond = 0;
        for (int i = 0; i < admitted.size(); i++) {
            long[] a = admitted.get(i);
            long[] byExact = exact.decide(new Limit[] { exactLimit }, new String[] { "e" }, new long[] { a[1] }, a[0],
                    false);
            if (byExact[0] == 0) {
                beyond += a[1];
                // the exact model is charged anyway: it counts what was admitted, to find what came next beyond it
                exact.decide(new Limit[] { boundedLimit.with(l.limit(), l.windowMicros(), l.burst() + a[1], false) },
                        new String[] { "e" }, new long[] { a[1] }, a[0], false);
            }
            long[] byBounded = bounded.decide(new Limit[] { boundedLimit }, new String[] { "b" },
                    new long[] { a[1] }, a[0], false);
            if (byBounded[0] == 0) {
                fail(how.get(i) + ": admitted, and the model with the bound added (" + bound + " units) denies it");
            }
        }
        return new Outcome(mostUnused, beyond);
    }

    private static void settle(LocalBackend store, Ending e, long now) {
        store.giveBackNow(new Policy[] { e.policy() }, new String[] { e.key() }, new long[] { e.unused() },
                new long[] { e.chargedAtMicros() }, now);
    }

    static Case generate(Random r) {
        Limit l;
        do {
            l = Scenarios.limit(r);
        } while (!List.of(LEASABLE).contains(l.algorithm()));
        if (r.nextInt(4) != 0 && Math.max(l.limit(), l.burst()) < 80) {
            // most cases on a policy large enough to lease (a slice is 8 units or more; auto takes a tenth)
            long limit = 80 + r.nextInt(2_000);
            l = new Limit(l.algorithm(), limit, l.windowMicros(), l.burst() == l.limit() ? limit
                    : 1 + (long) (r.nextDouble() * 3 * limit), false);
        }
        l = new Limit(l.algorithm(), l.limit(), l.windowMicros(), l.burst(), false);
        long capacity = Algorithm.fromConfigName(l.algorithm()).usesBurst() ? l.burst() : l.limit();
        long lease = capacity < 8 || r.nextBoolean() ? Policy.LEASE_AUTO : 8 + (long) (r.nextDouble() * (capacity - 7));
        // calls about as often as the policy refills, or much more (a hot key), or now and then
        long unit = Math.max(1, l.windowMicros() / l.limit());
        int count = 1 + r.nextInt(r.nextInt(4) == 0 ? 400 : 80);
        List<Step> steps = new ArrayList<>();
        long hot = Math.max(1, Math.min(unit, QuotaLeases.LIFETIME_NANOS / 1000 / 50));
        for (int i = 0; i < count; i++) {
            long gap = switch (r.nextInt(10)) {
                case 0 -> (long) (r.nextDouble() * 3 * QuotaLeases.LIFETIME_NANOS / 1000);
                case 1 -> (long) (r.nextDouble() * 3 * unit);
                case 2 -> (long) (r.nextDouble() * Math.min(l.windowMicros(), 10 * QuotaLeases.LIFETIME_NANOS / 1000));
                case 3 -> 0;
                default -> (long) (r.nextDouble() * hot);
            };
            boolean sweep = r.nextInt(15) == 0;
            // now and then a call taking the whole capacity (another service's batch), so that windows fill up
            long cost = r.nextInt(25) == 0 ? capacity
                    : r.nextInt(4) == 0 ? 1 + (long) (r.nextDouble() * Math.min(capacity, 20)) : 1;
            steps.add(new Step(gap, r.nextInt(5) == 0 ? 1 : 0, cost, sweep));
        }
        // half the cases start shortly before a window ends (EPOCH is a whole number of days), where slices end early
        long start = r.nextBoolean() ? (long) (r.nextDouble() * 1e12)
                : Math.max(0, l.windowMicros() * (1 + r.nextInt(1_000)) - (long) (r.nextDouble() * 150_000));
        return new Case(l, lease, start, steps);
    }

    static List<Case> simpler(Case c) {
        List<Case> out = new ArrayList<>();
        List<Step> steps = c.steps();
        int n = steps.size();
        if (n > 1) {
            out.add(new Case(c.limit(), c.lease(), c.start(), steps.subList(0, n / 2)));
            out.add(new Case(c.limit(), c.lease(), c.start(), steps.subList(n / 2, n)));
            for (int i = n - 1; i >= 0; i--) {
                List<Step> fewer = new ArrayList<>(steps);
                fewer.remove(i);
                out.add(new Case(c.limit(), c.lease(), c.start(), fewer));
            }
        }
        for (int i = 0; i < n; i++) {
            Step st = steps.get(i);
            if (st.cost() > 1 || st.gap() > 0) {
                List<Step> s = new ArrayList<>(steps);
                s.set(i, new Step(st.gap() / 2, st.instance(), Math.max(1, st.cost() / 2), st.sweep()));
                out.add(new Case(c.limit(), c.lease(), c.start(), s));
            }
        }
        if (c.start() != 0) {
            out.add(new Case(c.limit(), c.lease(), 0, steps));
        }
        return out;
    }
}
