package dev.ratelimit.runtime.algorithm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import dev.ratelimit.runtime.algorithm.ReferenceModel.Limit;

/**
 * Hand-computed cases for the {@link ReferenceModel}, so that the model is itself checked before it is used to judge
 * the real backends. Every expected number below was worked out on paper from the written semantics; the comments show
 * the arithmetic.
 */
class ReferenceModelTest {

    /** 2026-01-01T00:00:00Z in µs: a multiple of 60 s (and of 10 s), so windows are aligned on it. */
    static final long BASE = 1_767_225_600_000_000L;
    static final long S = 1_000_000L;

    private final ReferenceModel model = new ReferenceModel();

    /** One policy, one key: the reply {all, admitted, remaining, retry ms, reset ms}. */
    private long[] one(Limit limit, String key, long cost, long now, boolean dryRun) {
        return model.decide(new Limit[] { limit }, new String[] { key }, new long[] { cost }, now, dryRun);
    }

    private void expect(long[] actual, String key, long... expected) {
        assertArrayEquals(expected, actual, () -> "got " + Arrays.toString(actual) + "; " + model.describe(key));
    }

    private static Limit bucket(String algorithm, long limit, long windowMicros, long burst) {
        return new Limit(algorithm, limit, windowMicros, burst, false);
    }

    private static Limit window(String algorithm, long limit, long windowMicros) {
        return new Limit(algorithm, limit, windowMicros, 0, false);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Rational

    @Test
    void rationalIsNormalizedAndRoundsTowardsTheRightInfinity() {
        Rational r = Rational.of(6, -4);
        assertEquals("-3/2", r.toString());
        assertEquals(Rational.of(-3, 2), r);
        assertEquals(Rational.of(-3, 2).hashCode(), r.hashCode());
        assertEquals(BigInteger.valueOf(-2), r.floor());
        assertEquals(BigInteger.valueOf(-1), r.ceil());
        assertEquals(BigInteger.ONE, Rational.of(3, 2).floor());
        assertEquals(BigInteger.TWO, Rational.of(3, 2).ceil());
        assertEquals(BigInteger.valueOf(-4), Rational.of(-4).floor());
        assertEquals(BigInteger.valueOf(-4), Rational.of(-4).ceil());
        assertEquals(Rational.ZERO, Rational.of(0, -7));
        assertEquals(Rational.of(1, 6), Rational.of(1, 2).subtract(Rational.of(1, 3)));
        assertEquals(Rational.of(5, 6), Rational.of(1, 2).add(Rational.of(1, 3)));
        assertEquals(Rational.of(3, 2), Rational.of(1, 2).divide(Rational.of(1, 3)));
        assertEquals(Rational.of(1, 6), Rational.of(1, 2).multiply(Rational.of(1, 3)));
        assertTrue(Rational.of(1, 3).compareTo(Rational.of(333_333, 1_000_000)) > 0);
        assertEquals(Rational.of(1, 3), Rational.max(Rational.of(1, 3), Rational.of(1, 4)));
        assertEquals(Rational.of(1, 4), Rational.min(Rational.of(1, 3), Rational.of(1, 4)));
        // 1.8e15 + 0.1 is exact here; a double would have lost the 0.1.
        assertEquals(BigInteger.valueOf(1_800_000_000_000_001L),
                Rational.of(1_800_000_000_000_000L).add(Rational.of(1, 10)).ceil());
        assertThrows(ArithmeticException.class, () -> Rational.of(1, 0));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Bucket algorithms

    @Test
    void idleBucketAdmitsExactlyBurstThenWaitsOneThirdOfASecond() {
        for (String algorithm : new String[] { "token-bucket", "leaky-bucket", "gcra" }) {
            ReferenceModel m = new ReferenceModel();
            Limit l = bucket(algorithm, 3, S, 1); // P = 1e6/3 µs per unit, B = 1
            long t = 1_767_225_600_123_457L;
            long[] r;
            // Fresh: T = t, avail = B = 1; admitted, TAT = t + P; reset = next(t + P, 0) = P = 333333.3 µs -> 334 ms.
            r = m.decide(new Limit[] { l }, new String[] { "k" }, new long[] { 1 }, t, false);
            assertArrayEquals(new long[] { 1, 1, 0, 0, 334 }, r, algorithm);
            // Same instant: avail 0; retry = T + (1 - 1)·P - t = P -> 334 ms; reset next(T, 0) = P.
            r = m.decide(new Limit[] { l }, new String[] { "k" }, new long[] { 1 }, t, false);
            assertArrayEquals(new long[] { 0, 0, 0, 334, 334 }, r, algorithm);
            // 333_333 µs later, 1/3 µs is still missing: denied, and the 1/3 µs rounds up to 1 ms.
            r = m.decide(new Limit[] { l }, new String[] { "k" }, new long[] { 1 }, t + 333_333, false);
            assertArrayEquals(new long[] { 0, 0, 0, 1, 1 }, r, algorithm + " " + m.describe("k"));
            // 333_334 µs later the unit is back (T = t): admitted again.
            r = m.decide(new Limit[] { l }, new String[] { "k" }, new long[] { 1 }, t + 333_334, false);
            assertArrayEquals(new long[] { 1, 1, 0, 0, 334 }, r, algorithm);
            // Ten idle seconds bank nothing beyond B: T = max(TAT, t) = t, so one admission, then a full P to wait.
            r = m.decide(new Limit[] { l }, new String[] { "k" }, new long[] { 1 }, t + 10_000_000, false);
            assertArrayEquals(new long[] { 1, 1, 0, 0, 334 }, r, algorithm);
            r = m.decide(new Limit[] { l }, new String[] { "k" }, new long[] { 1 }, t + 10_000_000, false);
            assertArrayEquals(new long[] { 0, 0, 0, 334, 334 }, r, algorithm + " " + m.describe("k"));
        }
    }

    @Test
    void tenMillionPerSecondKeepsSubMicrosecondPrecision() {
        long b = 10_000_000;
        Limit l = bucket("token-bucket", b, S, b); // P = 0.1 µs per unit
        long t = BASE + 123_457;
        long[] r = one(l, "k", 1, t, false);
        // avail = B; after the charge TAT = t + 0.1; reset = next(t + 0.1, B - 1) = 0.1 µs -> 1 ms.
        expect(r, "k", 1, 1, b - 1, 0, 1);
        for (int i = 2; i <= 1000; i++) {
            r = one(l, "k", 1, t, false);
        }
        // 1000 charges: TAT = t + 100 µs, remaining B - 1000; reset = 100 + (B - 1000 + 1 - B)·0.1 = 0.1 µs -> 1 ms.
        expect(r, "k", 1, 1, 9_999_000, 0, 1);
        // 50 µs later, 500 units are back: avail = floor(B - 50 / 0.1) = B - 500.
        expect(one(l, "k", 1, t + 50, true), "k", 1, 1, 9_999_499, 0, 1);
        // A cost of B needs T + (B - B)·P <= t: 50 µs -> 1 ms;
        // reset = next(T, B - 500) = 50 - 499·0.1 = 0.1 µs -> 1 ms.
        expect(one(l, "k", b, t + 50, true), "k", 0, 0, 9_999_500, 1, 1);
        // Above the capacity: never.
        expect(one(l, "k", b + 1, t + 50, true), "k", 0, 0, 9_999_500, -1, 1);
        // 100 µs later the bucket is full: reset 0 while nothing is charged.
        expect(one(l, "k", b + 1, t + 100, true), "k", 0, 0, b, -1, 0);
    }

    @Test
    void bucketCostsAndBurstsAboveTheLimit() {
        Limit l = bucket("gcra", 10, 10 * S, 4); // P = 1 s, B = 4
        long t = BASE + 7 * S;
        // cost 3 of 4: TAT = t + 3 s; reset = next(t + 3 s, 1) = 3 s + (1 + 1 - 4)·1 s = 1 s.
        expect(one(l, "k", 3, t, false), "k", 1, 1, 1, 0, 1000);
        // cost 2 with 1 available: retry = T + (2 - 4)·P - t = 1 s.
        expect(one(l, "k", 2, t, false), "k", 0, 0, 1, 1000, 1000);
        expect(one(l, "k", 5, t, false), "k", 0, 0, 1, -1, 1000);
        // 2.5 s later: T - t = 0.5 s, avail = floor(4 - 0.5) = 3; cost 3 -> TAT = t + 6 s,
        // reset = next(t + 6 s, 0) = 6 s - 3 s - 2.5 s = 0.5 s.
        expect(one(l, "k", 3, t + 2_500_000, false), "k", 1, 1, 0, 0, 500);

        // Burst above the limit: an idle key still admits B = 5 at once although L = 3.
        Limit big = bucket("leaky-bucket", 3, S, 5);
        for (int i = 0; i < 5; i++) {
            expect(one(big, "b", 1, t, false), "b", 1, 1, 4 - i, 0, 334);
        }
        // TAT = t + 5P: retry = T + (1 - 5)·P - t = P -> 334 ms.
        expect(one(big, "b", 1, t, false), "b", 0, 0, 0, 334, 334);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // fixed-window

    @Test
    void fixedWindowRestartsExactlyAtTheAlignedBoundary() {
        Limit l = window("fixed-window", 2, 60 * S);
        long t = BASE + 59_999_500; // 500 µs before the boundary
        expect(one(l, "k", 1, t, false), "k", 1, 1, 1, 0, 1); // left 500 µs -> 1 ms
        expect(one(l, "k", 1, t, false), "k", 1, 1, 0, 0, 1);
        expect(one(l, "k", 1, t, false), "k", 0, 0, 0, 1, 1);
        expect(one(l, "k", 3, t, false), "k", 0, 0, 0, -1, 1);
        expect(one(l, "k", 1, BASE + 60 * S - 1, false), "k", 0, 0, 0, 1, 1);
        // At the boundary the count starts over; reset is a full window.
        expect(one(l, "k", 1, BASE + 60 * S, false), "k", 1, 1, 1, 0, 60_000);

        // A fresh key with 1_234_567 µs left in the window: a denial with nothing counted resets at 0.
        long u = BASE + 58_765_433;
        expect(one(l, "f", 3, u, false), "f", 0, 0, 2, -1, 0);
        expect(one(l, "f", 1, u, false), "f", 1, 1, 1, 0, 1235);
        // The next window forgets the previous count entirely.
        expect(one(l, "f", 2, u + 60 * S, false), "f", 1, 1, 0, 0, 1235);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // sliding-window-log

    @Test
    void logRetryWaitsForTheEntryOfTheRightRank() {
        Limit l = window("sliding-window-log", 3, 10 * S);
        long t = BASE + 123;
        expect(one(l, "k", 1, t, false), "k", 1, 1, 2, 0, 10_000); // nothing counted before: reset W
        expect(one(l, "k", 1, t + S, false), "k", 1, 1, 1, 0, 9_000); // oldest t: t + 10 s - (t + 1 s)
        expect(one(l, "k", 1, t + 2 * S, false), "k", 1, 1, 0, 0, 8_000);
        // count 3, cost 2: rank 3 + 2 - 3 - 1 = 1 -> the entry at t + 1 s leaves at t + 11 s: 8 s away.
        expect(one(l, "k", 2, t + 3 * S, false), "k", 0, 0, 0, 8_000, 7_000);
        // cost 1: rank 0 -> the entry at t: 7 s.
        expect(one(l, "k", 1, t + 3 * S, false), "k", 0, 0, 0, 7_000, 7_000);
        expect(one(l, "k", 4, t + 3 * S, false), "k", 0, 0, 0, -1, 7_000);
        // 1 µs before the entry at t leaves, it still counts (t - s < W).
        expect(one(l, "k", 1, t + 10 * S - 1, false), "k", 0, 0, 0, 1, 1);
        // At t + W it does not: two counted, oldest t + 1 s leaves 1 s later.
        expect(one(l, "k", 1, t + 10 * S, false), "k", 1, 1, 0, 0, 1_000);

        // Costs log several entries at one time: t x3, t + 1 s x2.
        Limit five = window("sliding-window-log", 5, 10 * S);
        expect(one(five, "m", 3, t, false), "m", 1, 1, 2, 0, 10_000);
        expect(one(five, "m", 2, t + S, false), "m", 1, 1, 0, 0, 9_000);
        // cost 4: rank 5 + 4 - 5 - 1 = 3 -> [t, t, t, t+1s, t+1s][3] = t + 1 s -> 9 s; reset from the oldest: 8 s.
        expect(one(five, "m", 4, t + 2 * S, false), "m", 0, 0, 0, 9_000, 8_000);
        // cost 3: rank 2 -> t -> 8 s.
        expect(one(five, "m", 3, t + 2 * S, false), "m", 0, 0, 0, 8_000, 8_000);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // sliding-window-counter

    @Test
    void counterWeighsThePreviousWindowAndSolvesWaitsExactly() {
        Limit l = window("sliding-window-counter", 10, 10 * S);
        long i0 = BASE; // start of window i
        // Window i, 5 s in: fresh, avail 10; cost 8 -> cur 8. reset = wait(10 - 2 - 1 = 7): the estimate stays 8 to
        // the end of window i, then 8·(1 - f) = 7 at f = 1/8 -> 1.25 s into window i + 1: 5 s + 1.25 s = 6.25 s.
        expect(one(l, "k", 8, i0 + 5 * S, false), "k", 1, 1, 2, 0, 6_250);

        long t = i0 + 13 * S; // 3 s into window i + 1: prev 8, cur 0, est = 8·0.7 = 5.6, avail = floor(4.4) = 4
        // cost 6: 11.6 > 10; retry = wait(4): 8·(1 - f) = 4 at f = 1/2 -> 5 s in -> 2 s.
        // reset = wait(10 - 4 - 1 = 5): f = 3/8 -> 3.75 s in -> 0.75 s.
        expect(one(l, "k", 6, t, false), "k", 0, 0, 4, 2_000, 750);
        expect(one(l, "k", 11, t, false), "k", 0, 0, 4, -1, 750);
        // cost 4: 9.6 <= 10 -> cur 4; reset = wait'(10 - 0 - 1 = 9) on 8·(1 - f) + 4: f = 3/8 -> 0.75 s.
        expect(one(l, "k", 4, t, false), "k", 1, 1, 0, 0, 750);
        // est 9.6, avail 0; cost 1: 10.6 > 10, retry = wait(9) = 0.75 s = reset.
        expect(one(l, "k", 1, t, false), "k", 0, 0, 0, 750, 750);
        // 6 s in: est = 8·0.4 + 4 = 7.2, avail 2; cost 3: retry = wait(7): 8·(1 - f) = 3 at f = 5/8 -> 0.25 s.
        expect(one(l, "k", 3, i0 + 16 * S, false), "k", 0, 0, 2, 250, 250);
        // 5 s into window i + 2: the stored window i + 1 becomes prev (4), cur 0: est = 2, avail 8.
        // cost 1 (dry): cur 1; reset = wait'(10 - 7 - 1 = 2) on 4·(1 - f) + 1: f = 3/4 -> 2.5 s.
        expect(one(l, "k", 1, i0 + 25 * S, true), "k", 1, 1, 7, 0, 2_500);
        // cost 9: 2 + 9 > 10; retry = wait(1) on 4·(1 - f): f = 3/4 -> 2.5 s; reset = wait(10 - 8 - 1 = 1) = 2.5 s.
        expect(one(l, "k", 9, i0 + 25 * S + 1_234, true), "k", 0, 0, 8, 2_499, 2_499); // 2_498_766 µs -> 2_499 ms
        // Two windows later nothing weighs any more: a fresh start. cost 1: reset = wait'(0) on cur 1, which reaches 0
        // only at the end of the next window: 5 s + 10 s.
        expect(one(l, "k", 1, i0 + 35 * S, true), "k", 1, 1, 9, 0, 15_000);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // All-or-nothing, shadow, dryRun

    @Test
    void allOrNothingWithAShadowPolicy() {
        Limit a = bucket("token-bucket", 1, S, 1); // one per second
        Limit shadow = new Limit("fixed-window", 1, 60 * S, 0, true);
        Limit x = window("fixed-window", 5, 60 * S);
        Limit shadowY = new Limit("fixed-window", 5, 60 * S, 0, true);
        long t = BASE + 30 * S; // 30 s left in the minute

        long[] r = model.decide(new Limit[] { a, shadow }, new String[] { "a", "s" }, new long[] { 1, 1 }, t, false);
        assertArrayEquals(new long[] { 1, 1, 0, 0, 1_000, 1, 0, 0, 30_000 }, r);
        // Both deny: the bucket blocks.
        r = model.decide(new Limit[] { a, shadow }, new String[] { "a", "s" }, new long[] { 1, 1 }, t, false);
        assertArrayEquals(new long[] { 0, 0, 0, 1_000, 1_000, 0, 0, 30_000, 30_000 }, r);
        // Only the shadow denies: admitted anyway; the bucket is charged, the shadow window is not.
        r = model.decide(new Limit[] { a, shadow }, new String[] { "a", "s" }, new long[] { 1, 1 }, t + S, false);
        assertArrayEquals(new long[] { 1, 1, 0, 0, 1_000, 0, 0, 29_000, 29_000 }, r);
        assertEquals("s: fixed-window index=" + (BASE / (60 * S)) + " count=1", model.describe("s"));

        // A non-shadow denial: the admitting window is not charged (remaining 5, reset 0 on an empty window).
        r = model.decide(new Limit[] { a, x }, new String[] { "a", "x" }, new long[] { 1, 1 }, t + S, false);
        assertArrayEquals(new long[] { 0, 0, 0, 1_000, 1_000, 1, 5, 0, 0 }, r);
        expect(one(x, "x", 1, t + S, false), "x", 1, 1, 4, 0, 29_000);

        // Only shadow policies: admitted even though the only policy denies.
        expect(one(shadow, "s", 1, t + S, false), "s", 1, 0, 0, 29_000, 29_000);

        // An admitting shadow policy is charged along with the others.
        r = model.decide(new Limit[] { a, shadowY }, new String[] { "a", "y" }, new long[] { 1, 2 }, t + 2 * S, false);
        assertArrayEquals(new long[] { 1, 1, 0, 0, 1_000, 1, 3, 0, 28_000 }, r);
        expect(one(shadowY, "y", 1, t + 2 * S, false), "y", 1, 1, 2, 0, 28_000);
    }

    @Test
    void dryRunRepliesAsIfChargedButLeavesTheState() {
        long t = BASE + 7 * S;
        Limit[] limits = {
                bucket("token-bucket", 3, S, 2),
                bucket("leaky-bucket", 3, S, 2),
                bucket("gcra", 3, S, 3),
                window("fixed-window", 3, 60 * S),
                window("sliding-window-log", 3, 60 * S),
                window("sliding-window-counter", 3, 60 * S) };
        String[] keys = { "tb", "lb", "g", "fw", "log", "cnt" };
        long[] costs = { 1, 1, 1, 1, 1, 1 };
        // Give every key some state first, so that dryRun is checked on existing state too (every limit leaves room for
        // a second unit 1 µs later, so that the dry run below is admitted by all of them).
        model.decide(limits, keys, costs, t, false);
        String[] before = Arrays.stream(keys).map(model::describe).toArray(String[]::new);

        long[] dry = model.decide(limits, keys, costs, t + 1, true);
        assertEquals(1, dry[0]);
        assertArrayEquals(before, Arrays.stream(keys).map(model::describe).toArray(String[]::new));
        assertArrayEquals(dry, model.decide(limits, keys, costs, t + 1, true));
        // The committed call gets exactly the reply of the dry run, and then the state changes.
        assertArrayEquals(dry, model.decide(limits, keys, costs, t + 1, false));
        for (int i = 0; i < keys.length; i++) {
            assertTrue(!before[i].equals(model.describe(keys[i])), keys[i] + " should have changed");
        }

        // On a fresh key, a dry run leaves nothing behind.
        // B = 2: remaining 1; reset = next(t + P, 1) = P -> 334 ms.
        expect(one(limits[0], "fresh", 1, t, true), "fresh", 1, 1, 1, 0, 334);
        assertEquals("fresh: absent", model.describe("fresh"));
    }

    @Test
    void misuseIsRejected() {
        Limit l = bucket("token-bucket", 3, S, 1);
        assertThrows(IllegalArgumentException.class, () -> model.decide(new Limit[] { l, l },
                new String[] { "k", "k" }, new long[] { 1, 1 }, BASE, false));
        assertThrows(IllegalArgumentException.class, () -> one(window("nope", 1, S), "k", 1, BASE, false));
        one(l, "k", 1, BASE, false);
        assertThrows(IllegalStateException.class, () -> one(window("fixed-window", 3, S), "k", 1, BASE, false));
    }
}
