package dev.ratelimit.runtime.algorithm;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * An executable specification of the six rate-limiting algorithms, in exact arithmetic.
 * <p>
 * It is written from the written semantics only and shares no code with the extension, so that a property-based test
 * can compare the real backends (Redis Lua scripts, in-process Java backend) against it call by call. Clarity wins
 * over speed everywhere: every time is an exact {@link Rational} number of microseconds, and rounding happens exactly
 * once, when a wait is converted to the whole milliseconds of the reply.
 * <p>
 * Per-key state lives in a plain {@link HashMap}; different keys are independent, and nothing ever expires by itself
 * (a real backend may drop a key once its state can no longer influence a decision, which must be indistinguishable
 * from keeping it). The three bucket algorithms share one state shape, so they share the state of a key; using one key
 * with two algorithms of different state shapes is a mistake of the caller and is rejected.
 * <p>
 * Not thread-safe: a property-based test drives it from one thread.
 */
final class ReferenceModel {

    /**
     * One policy as the backends see it: algorithm config name, limit, window in microseconds, burst (capacity of the
     * bucket algorithms; ignored by the window algorithms), shadow, and the lock-out in microseconds (0: none; never
     * with shadow): once the policy denies a key, the key is denied for that long whatever its algorithm says.
     */
    record Limit(String algorithm, long limit, long windowMicros, long burst, boolean shadow, long blockMicros,
            boolean overrides) {

        Limit(String algorithm, long limit, long windowMicros, long burst, boolean shadow) {
            this(algorithm, limit, windowMicros, burst, shadow, 0);
        }

        Limit(String algorithm, long limit, long windowMicros, long burst, boolean shadow, long blockMicros) {
            this(algorithm, limit, windowMicros, burst, shadow, blockMicros, false);
        }

        /** The same policy with other values, its lock-out and overrides kept. */
        Limit with(long limit, long windowMicros, long burst, boolean shadow) {
            return new Limit(algorithm, limit, windowMicros, burst, shadow, shadow ? 0 : blockMicros, overrides);
        }

        /** The same policy, taking overrides or not. */
        Limit withOverrides(boolean overrides) {
            return new Limit(algorithm, limit, windowMicros, burst, shadow, blockMicros, overrides);
        }

        /** The script's shadow argument: 1 shadow, L<us> locking out, else 0; after O with overrides. */
        String flags() {
            return (overrides ? "O" : "") + (shadow ? "1" : blockMicros > 0 ? "L" + blockMicros : "0");
        }

        /**
         * The values this policy decides a key on with the key's override {@code o} (null: none): those it sets, the
         * policy's for the rest, a burst not set following a set limit where the policy's burst is its limit.
         */
        Limit applying(long[] o) {
            if (!overrides || o == null) {
                return this;
            }
            long l = limit;
            long b = burst;
            if (o[0] > 0) {
                b = burst == limit ? o[0] : burst;
                l = o[0];
            }
            if (o[2] > 0) {
                b = o[2];
            }
            return new Limit(algorithm, l, o[1] > 0 ? o[1] : windowMicros, b, shadow, blockMicros, overrides);
        }
    }

    private static final Rational MICROS_PER_MS = Rational.of(1000);

    /**
     * Per key, its override: limit, window, burst (0: not set) and the microsecond it stops applying at (0: never). A
     * policy without overrides ignores it.
     */
    private final Map<String, long[]> overrides = new HashMap<>();

    /** Sets the override of {@code key} (null: removes it); see {@link Limit#applying}. */
    void override(String key, long[] o) {
        if (o == null) {
            overrides.remove(key);
        } else {
            overrides.put(key, o.clone());
        }
    }

    /** The policies as they decide their keys at {@code t}: each with overrides, its key's live override applied. */
    private Limit[] applying(Limit[] limits, String[] keys, long t) {
        Limit[] out = limits.clone();
        for (int i = 0; i < limits.length; i++) {
            long[] o = overrides.get(keys[i]);
            out[i] = limits[i].applying(o == null || (o[3] > 0 && o[3] <= t) ? null : o);
        }
        return out;
    }

    /** Per-key state; the value is one of the state records below. */
    private final Map<String, Object> states = new HashMap<>();
    /** Per key, the microsecond its lock-out ends at (a policy's block-for); kept after it ended, which is harmless. */
    private final Map<String, Long> lockedUntil = new HashMap<>();
    /** The lease of the call being decided (concurrency). */
    private String lease;
    /** Whether the call being decided is charged if admitted (not a dry run). */
    private boolean charging;
    /** How far ahead the call being decided may take its turn, in µs (0: none); see {@link #decideInTurn}. */
    private long turn;

    // ---------------------------------------------------------------------------------------------------------------
    // State shapes

    /**
     * token-bucket, leaky-bucket, gcra: the theoretical arrival time (an exact, possibly fractional, time in µs), a
     * whole number of 1/{@code den} µs, {@code den} the limit it was written under.
     */
    private record BucketState(Rational tat, long den) {
    }

    private static final Rational SCALE_SLACK = Rational.of(1, 1_000_000);

    /**
     * The key's TAT as a bucket of {@code limit} reads it, or null when it has none: a TAT written under another limit
     * is rounded up to a whole number of 1/limit µs (never earlier than written), the fraction's products within a
     * millionth of a whole taken as that whole, as the scripts read it (see {@code bucket_parse}).
     */
    private Rational bucketTat(String key, long limit) {
        BucketState s = state(key, BucketState.class);
        if (s == null || s.den() == limit) {
            return s == null ? null : s.tat();
        }
        BigInteger a = s.tat().floor();
        Rational frac = s.tat().subtract(Rational.of(a));
        BigInteger b = frac.multiply(limit).subtract(SCALE_SLACK).ceil();
        if (b.signum() < 0) {
            b = BigInteger.ZERO;
        }
        if (b.compareTo(BigInteger.valueOf(limit)) >= 0) {
            return Rational.of(a.add(BigInteger.ONE));
        }
        return Rational.of(a).add(Rational.of(b, BigInteger.valueOf(limit)));
    }

    /** fixed-window: the aligned window index and the units admitted in it. */
    private record FixedWindowState(long index, long count) {
    }

    /**
     * sliding-window-log: the multiset of times (µs) of admitted units, as time -> multiplicity. A multiset rather than
     * a list because one request of cost c logs c entries, and c may be in the millions.
     */
    private record LogState(TreeMap<Long, Long> entries) {
    }

    /** sliding-window-counter: the window index, the previous window's count and the current window's count. */
    private record CounterState(long index, long prev, long cur) {
    }

    /**
     * concurrency: the leases held, by name: each one's units and the microsecond it expires at; and the tombstones of
     * leases released while not held (a release that overtook its charge), by name: the microsecond each expires at.
     */
    private record LeaseState(Map<String, long[]> leases, Map<String, Long> tombstones) {
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The verdict of one policy, before the all-or-nothing decision

    /**
     * What one policy says about the request on its own, for both possible outcomes of the all-or-nothing decision.
     *
     * @param admits whether this policy, alone, would admit
     * @param availableBefore the units available before the request ("remaining" when not charged)
     * @param cost the cost (subtracted from "remaining" when charged)
     * @param retryMs the retry-after in ms (0 when admits; -1 when never admissible)
     * @param resetUncharged µs until more quota, on the state as it stands
     * @param resetCharged µs until more quota, on the state after the charge (only meaningful when admits)
     * @param charge applies the charge to the model's state (only called when admits and the call is committed)
     */
    private record Verdict(boolean admits, long availableBefore, long cost, long retryMs, Rational resetUncharged,
            Rational resetCharged, Runnable charge) {

        static Verdict denied(long availableBefore, long cost, long retryMs, Rational reset) {
            return new Verdict(false, availableBefore, cost, retryMs, reset, reset, () -> {
                throw new IllegalStateException("a denying policy is never charged");
            });
        }

        static Verdict admitted(long availableBefore, long cost, Rational resetUncharged, Rational resetCharged,
                Runnable charge) {
            return new Verdict(true, availableBefore, cost, 0, resetUncharged, resetCharged, charge);
        }

        /** Admitted at a turn {@code retryMs} from now, charged now (more than is available now: nothing is left). */
        static Verdict inTurn(long availableBefore, long cost, long retryMs, Rational resetUncharged,
                Rational resetCharged, Runnable charge) {
            return new Verdict(true, availableBefore, cost, retryMs, resetUncharged, resetCharged, charge);
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The call

    /**
     * Decides one call; keys are distinct within a call.
     *
     * @return {@code long[1 + 4n]}: all admitted (1/0), then per policy: admitted (1/0), remaining, retry-after ms,
     *         reset ms
     */
    long[] decide(Limit[] limits, String[] keys, long[] costs, long nowMicros, boolean dryRun) {
        return decide(limits, keys, costs, nowMicros, dryRun, null);
    }

    /** Decides one call whose concurrency policies, when charged, take slots named {@code lease}. */
    long[] decide(Limit[] limits, String[] keys, long[] costs, long nowMicros, boolean dryRun, String lease) {
        return decide(limits, keys, costs, nowMicros, dryRun, lease, false);
    }

    /**
     * Decides and charges a call that may wait up to {@code turnMicros} µs ({@code max-wait}): a bucket policy whose
     * cost does not fit now admits it at its turn, the instant e = T + (c - B)·P its units have come, when e - now is
     * at most {@code turnMicros}; the call is charged now (T moves on by c·P as for any admission) and its retry says
     * in how many ms (rounded up) e comes; nothing is left. The other algorithms decide as {@link #decide} does.
     */
    long[] decideInTurn(Limit[] limits, String[] keys, long[] costs, long nowMicros, long turnMicros) {
        turn = turnMicros;
        try {
            return decide(limits, keys, costs, nowMicros, false, null, false);
        } finally {
            turn = 0;
        }
    }

    /** The exact instant, in µs, of the turn the last call {@link #decideInTurn} admitted took on {@code key}. */
    Rational turnOf(String key) {
        return turns.get(key);
    }

    /** Per key, the instant of the last turn taken on it (see {@link #turnOf}). */
    private final Map<String, Rational> turns = new HashMap<>();

    /**
     * Charges a reservation: as {@link #decide}, and when admitted the reply's first value is the time of the charge
     * (what its settlement names) instead of 1.
     */
    long[] reserve(Limit[] limits, String[] keys, long[] costs, long nowMicros, String lease) {
        long[] reply = decide(limits, keys, costs, nowMicros, false, lease, false);
        if (reply[0] == 1) {
            reply[0] = nowMicros;
        }
        return reply;
    }

    /**
     * Settles a reservation charged at {@code at}: each policy gives back {@code refunds[i]} units of what it holds in
     * use, as its algorithm says (a bucket's time moves back, never before now; a window's count of the reservation's
     * window falls, the counter's previous window too, never below 0; a log loses entries logged at {@code at}; a
     * concurrency policy has nothing to settle). Then replies each key's state as it stands, read for one unit.
     */
    long[] settle(Limit[] configured, String[] keys, long[] refunds, long at, long nowMicros) {
        return settle(configured, keys, refunds, at, nowMicros, false);
    }

    /**
     * Gives back what a leased slice charged at {@code at} did not use: as {@link #settle}, except that a bucket's
     * time moves back by the time those units took less the time passed since {@code at} (nothing when that is not
     * positive): what may have refilled since is not given back.
     */
    long[] giveBack(Limit[] configured, String[] keys, long[] unused, long at, long nowMicros) {
        return settle(configured, keys, unused, at, nowMicros, true);
    }

    private long[] settle(Limit[] configured, String[] keys, long[] refunds, long at, long nowMicros, boolean slice) {
        Limit[] limits = applying(configured, keys, nowMicros);
        for (int i = 0; i < limits.length; i++) {
            if (refunds[i] > 0) {
                refund(limits[i], keys[i], refunds[i], at, nowMicros, slice);
            } else if (refunds[i] < 0) {
                debit(limits[i], keys[i], -refunds[i], nowMicros);
            }
        }
        long[] ones = new long[limits.length];
        java.util.Arrays.fill(ones, 1);
        return decide(configured, keys, ones, nowMicros, true, null, true);
    }

    /** The most a sliding-window counter's window counts in debt: below 2^24, where the script's estimate is exact. */
    private static final long COUNTER_MOST = 16_777_215;

    /**
     * Charges {@code units} more at {@code t}, into debt if need be, at most one capacity beyond it: a bucket's time
     * moves on (to at most two capacities from now), a window counts more (up to twice the limit; the counter also at
     * most {@link #COUNTER_MOST}), a log logs more entries now (up to twice the limit in the window); a concurrency
     * policy has nothing to settle.
     */
    private void debit(Limit p, String key, long units, long t) {
        long w = p.windowMicros();
        long l = p.limit();
        switch (p.algorithm()) {
            case "token-bucket", "leaky-bucket", "gcra" -> {
                Rational tat = bucketTat(key, l);
                Rational now = Rational.of(t);
                Rational perUnit = Rational.of(w, l);
                Rational from = tat == null ? now : Rational.max(tat, now);
                Rational most = now.add(perUnit.multiply(2 * p.burst()));
                Rational next = from.add(perUnit.multiply(units));
                states.put(key, new BucketState(next.compareTo(most) > 0 ? most : next, l));
            }
            case "fixed-window" -> {
                FixedWindowState s = state(key, FixedWindowState.class);
                long i = Math.floorDiv(t, w);
                long count = s != null && s.index() == i ? s.count() : 0;
                states.put(key, new FixedWindowState(i, Math.min(count + units, 2 * l)));
            }
            case "sliding-window-counter" -> {
                CounterState s = state(key, CounterState.class);
                long i = Math.floorDiv(t, w);
                long prev = 0;
                long cur = 0;
                if (s != null && s.index() == i) {
                    prev = s.prev();
                    cur = s.cur();
                } else if (s != null && s.index() == i - 1) {
                    prev = s.cur();
                }
                states.put(key, new CounterState(i, prev, Math.min(cur + units, Math.min(2 * l, COUNTER_MOST))));
            }
            case "sliding-window-log" -> {
                LogState s = state(key, LogState.class);
                TreeMap<Long, Long> entries = s == null ? new TreeMap<>() : s.entries();
                long count = 0;
                for (long m : entries.tailMap(Math.subtractExact(t, w), false).values()) {
                    count += m;
                }
                long add = Math.min(units, 2 * l - count);
                if (add > 0) {
                    entries.merge(t, add, Math::addExact);
                    states.put(key, new LogState(entries));
                }
            }
            default -> {
                // concurrency: nothing to settle
            }
        }
    }

    private void refund(Limit p, String key, long units, long at, long t, boolean slice) {
        long w = p.windowMicros();
        switch (p.algorithm()) {
            case "token-bucket", "leaky-bucket", "gcra" -> {
                Rational tat = bucketTat(key, p.limit());
                Rational now = Rational.of(t);
                if (tat != null && tat.compareTo(now) > 0) {
                    Rational back = tat.subtract(Rational.of(w, p.limit()).multiply(units));
                    if (slice && t > at) {
                        back = back.add(Rational.of(t - at));
                        if (back.compareTo(tat) >= 0) {
                            return;
                        }
                    }
                    states.put(key, new BucketState(Rational.max(back, now), p.limit()));
                }
            }
            case "fixed-window" -> {
                FixedWindowState s = state(key, FixedWindowState.class);
                if (s != null && s.index() == Math.floorDiv(at, w)) {
                    states.put(key, new FixedWindowState(s.index(), Math.max(0, s.count() - units)));
                }
            }
            case "sliding-window-counter" -> {
                CounterState s = state(key, CounterState.class);
                long j = Math.floorDiv(at, w);
                if (s != null && j == s.index()) {
                    states.put(key, new CounterState(s.index(), s.prev(), Math.max(0, s.cur() - units)));
                } else if (s != null && j == s.index() - 1) {
                    states.put(key, new CounterState(s.index(), Math.max(0, s.prev() - units), s.cur()));
                }
            }
            case "sliding-window-log" -> {
                LogState s = state(key, LogState.class);
                Long there = s == null ? null : s.entries().get(at);
                if (there != null) {
                    if (there <= units) {
                        s.entries().remove(at);
                    } else {
                        s.entries().put(at, there - units);
                    }
                }
            }
            default -> {
                // concurrency: nothing to settle
            }
        }
    }

    /**
     * Decides one call; {@code asIs} (with {@code dryRun}) replies each policy's state as it stands, as a check that
     * charges nothing reads it, rather than what the charge would leave.
     */
    private long[] decide(Limit[] configured, String[] keys, long[] costs, long nowMicros, boolean dryRun,
            String lease, boolean asIs) {
        Limit[] limits = applying(configured, keys, nowMicros);
        this.lease = lease;
        this.charging = !dryRun;
        int n = limits.length;
        if (keys.length != n || costs.length != n) {
            throw new IllegalArgumentException(
                    "limits, keys and costs differ in length: " + n + ", " + keys.length + ", " + costs.length);
        }
        Set<String> seen = new HashSet<>();
        for (String key : keys) {
            if (!seen.add(key)) {
                // With a repeated key the policies would see each other's charges; the semantics exclude it.
                throw new IllegalArgumentException("keys must be distinct within a call, repeated: " + key);
            }
        }

        // 1. Every policy judges the request on its own state at `now`, independently of the others.
        // A key locked out is denied with nothing left until its lock-out ends; a policy with a lock-out that denies
        // (a request that could ever be admitted) locks its key out from now, and waits at least that long.
        List<Verdict> verdicts = new ArrayList<>(n);
        boolean[] locks = new boolean[n];
        for (int i = 0; i < n; i++) {
            long block = limits[i].blockMicros();
            Long until = block > 0 ? lockedUntil.get(keys[i]) : null;
            if (until != null && until > nowMicros) {
                Rational left = Rational.of(until - nowMicros);
                verdicts.add(Verdict.denied(0, costs[i], retryMs(left), left));
                continue;
            }
            Verdict v = evaluate(limits[i], keys[i], costs[i], nowMicros);
            if (block > 0 && !v.admits() && v.retryMs() >= 0) {
                locks[i] = true;
                v = Verdict.denied(v.availableBefore(), v.cost(), Math.max(v.retryMs(), retryMs(Rational.of(block))),
                        Rational.max(v.resetUncharged(), Rational.of(block)));
            }
            verdicts.add(v);
        }

        // 2. All-or-nothing: only non-shadow policies can block (so only shadow policies => all admitted).
        boolean all = true;
        for (int i = 0; i < n; i++) {
            if (!limits[i].shadow() && !verdicts.get(i).admits()) {
                all = false;
            }
        }

        // 3. The reply. A policy is charged iff the call is admitted and it admits itself (a shadow policy that denies
        // is not charged even though it did not block). dryRun changes nothing here: the reply is the one the
        // committed call would get.
        // with a policy taking overrides, each policy's limit and window as applied, after the rest
        boolean applied = java.util.Arrays.stream(configured).anyMatch(Limit::overrides);
        long[] reply = new long[1 + (applied ? 6 : 4) * n];
        reply[0] = all ? 1 : 0;
        for (int i = 0; applied && i < n; i++) {
            reply[1 + 4 * n + 2 * i] = limits[i].limit();
            reply[2 + 4 * n + 2 * i] = limits[i].windowMicros();
        }
        for (int i = 0; i < n; i++) {
            Verdict v = verdicts.get(i);
            boolean charged = all && v.admits() && !asIs;
            reply[1 + 4 * i] = v.admits() ? 1 : 0;
            reply[2 + 4 * i] = charged ? Math.max(v.availableBefore() - v.cost(), 0) : v.availableBefore();
            reply[3 + 4 * i] = v.retryMs();
            reply[4 + 4 * i] = resetMs(charged ? v.resetCharged() : v.resetUncharged());
        }

        // 4. The state changes, only after every verdict was taken (they all read the state as it was at `now`). A
        // denial locks its key out whatever the others said (a lock-out policy is never shadow: its denial denies).
        for (int i = 0; i < n; i++) {
            if (locks[i] && !dryRun) {
                lockedUntil.put(keys[i], nowMicros + limits[i].blockMicros());
            }
        }
        if (all && !dryRun) {
            for (Verdict v : verdicts) {
                if (v.admits()) {
                    v.charge().run();
                }
            }
        }
        return reply;
    }

    private Verdict evaluate(Limit p, String key, long cost, long t) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1: " + cost);
        }
        if (p.limit() < 1 || p.windowMicros() < 1) {
            throw new IllegalArgumentException("limit and window must be >= 1: " + p);
        }
        return switch (p.algorithm()) {
            case "token-bucket", "leaky-bucket", "gcra" -> bucket(p, key, cost, t);
            case "fixed-window" -> fixedWindow(p, key, cost, t);
            case "sliding-window-log" -> slidingWindowLog(p, key, cost, t);
            case "sliding-window-counter" -> slidingWindowCounter(p, key, cost, t);
            case "concurrency" -> concurrency(p, key, cost, t);
            default -> throw new IllegalArgumentException("unknown algorithm: " + p.algorithm());
        };
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Bucket algorithms: token-bucket, leaky-bucket, gcra

    /**
     * The three bucket algorithms are one algorithm (GCRA) under three names: P = W / L µs per unit, the state is the
     * theoretical arrival time TAT, and k units are available at t iff {@code T + (k - B)·P <= t} with T = max(TAT, t).
     */
    private Verdict bucket(Limit p, String key, long c, long t) {
        long b = p.burst();
        if (b < 1) {
            throw new IllegalArgumentException("burst must be >= 1 for a bucket algorithm: " + p);
        }
        Rational now = Rational.of(t);
        Rational perUnit = Rational.of(p.windowMicros(), p.limit());
        Rational tat = bucketTat(key, p.limit());
        // A TAT in the past means the bucket is full; it does not earn credit beyond B.
        Rational tT = tat == null ? now : Rational.max(tat, now);

        long avail = bucketAvailable(tT, now, perUnit, b);
        Rational resetHere = bucketNext(tT, avail, now, perUnit, b);
        if (c > b) {
            return Verdict.denied(avail, c, -1, resetHere);
        }
        if (c > avail) {
            // c <= B fails the availability condition, so this wait is > 0.
            Rational wait = tT.add(perUnit.multiply(c - b)).subtract(now);
            if (turn > 0 && wait.compareTo(Rational.of(turn)) <= 0) {
                // its turn: the instant now + wait, when c units have come; charged now
                Rational newTat = tT.add(perUnit.multiply(c));
                Rational at = now.add(wait);
                return Verdict.inTurn(avail, c, retryMs(wait), resetHere, bucketNext(newTat, 0, now, perUnit, b),
                        () -> {
                            states.put(key, new BucketState(newTat, p.limit()));
                            turns.put(key, at);
                        });
            }
            return Verdict.denied(avail, c, retryMs(wait), resetHere);
        }
        Rational newTat = tT.add(perUnit.multiply(c));
        return Verdict.admitted(avail, c, resetHere, bucketNext(newTat, avail - c, now, perUnit, b),
                () -> states.put(key, new BucketState(newTat, p.limit())));
    }

    /** clamp(floor(B - (T - t) / P), 0, B): the largest k in [0, B] with T + (k - B)·P <= t, or 0 if none. */
    private static long bucketAvailable(Rational tT, Rational now, Rational perUnit, long b) {
        BigInteger k = Rational.of(b).subtract(tT.subtract(now).divide(perUnit)).floor();
        // Clamp in BigInteger first: after a clock going backwards, T - t could make k far below Long.MIN_VALUE.
        if (k.signum() < 0) {
            return 0;
        }
        return k.min(BigInteger.valueOf(b)).longValueExact();
    }

    /** µs until one more unit is available when k are available at state T: 0 if already full. */
    private static Rational bucketNext(Rational tT, long k, Rational now, Rational perUnit, long b) {
        if (k >= b) {
            return Rational.ZERO;
        }
        return tT.add(perUnit.multiply(k + 1 - b)).subtract(now);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // fixed-window

    private Verdict fixedWindow(Limit p, String key, long c, long t) {
        long w = p.windowMicros();
        long l = p.limit();
        long i = Math.floorDiv(t, w); // windows are aligned on multiples of W (epoch-based)
        FixedWindowState s = state(key, FixedWindowState.class);
        long count = s != null && s.index() == i ? s.count() : 0; // a stale window counts for nothing
        // (i + 1)·W may not fit in a long for a huge W; compute it exactly.
        Rational left = Rational.of(i).add(1).multiply(w).subtract(t);
        // An empty window has nothing to give back, so "more quota" never comes: reset 0.
        Rational resetHere = count == 0 ? Rational.ZERO : left;
        if (c > l) {
            return Verdict.denied(l - count, c, -1, resetHere);
        }
        if (Math.addExact(count, c) > l) {
            return Verdict.denied(l - count, c, retryMs(left), resetHere);
        }
        long newCount = count + c;
        return Verdict.admitted(l - count, c, resetHere, left,
                () -> states.put(key, new FixedWindowState(i, newCount)));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // sliding-window-log

    private Verdict slidingWindowLog(Limit p, String key, long c, long t) {
        long w = p.windowMicros();
        long l = p.limit();
        LogState s = state(key, LogState.class);
        TreeMap<Long, Long> entries = s == null ? new TreeMap<>() : s.entries();

        // An entry at time e counts while t - e < W, i.e. e > t - W (this includes entries after t, should the clock
        // go backwards: the semantics say nothing else and the model does not second-guess them).
        NavigableMap<Long, Long> counted = entries.tailMap(Math.subtractExact(t, w), false);
        long count = 0;
        for (long m : counted.values()) {
            count = Math.addExact(count, m);
        }
        Rational resetHere = count > 0 ? Rational.of(counted.firstKey()).add(w).subtract(t) : Rational.ZERO;

        if (c > l) {
            return Verdict.denied(l - count, c, -1, resetHere);
        }
        if (Math.addExact(count, c) > l) {
            // count + c - L entries must leave the window; the last of them to leave has 0-based rank count + c - L - 1
            // (oldest first). It is counted, so its wait is > 0.
            long rank = count + c - l - 1;
            long entry = entryOfRank(counted, rank);
            return Verdict.denied(l - count, c, retryMs(Rational.of(entry).add(w).subtract(t)), resetHere);
        }
        // When charged: the oldest counted entry leaves first; if there was none, the new entries leave after W.
        Rational resetCharged = count > 0 ? resetHere : Rational.of(w);
        return Verdict.admitted(l - count, c, resetHere, resetCharged, () -> {
            entries.merge(t, c, Math::addExact);
            states.put(key, new LogState(entries)); // needed for a new key; harmless otherwise
        });
    }

    /** The entry of the given 0-based rank in the multiset, oldest first. */
    private static long entryOfRank(NavigableMap<Long, Long> multiset, long rank) {
        long seen = 0;
        for (Map.Entry<Long, Long> e : multiset.entrySet()) {
            seen += e.getValue();
            if (seen > rank) {
                return e.getKey();
            }
        }
        throw new IllegalStateException("rank " + rank + " beyond the " + seen + " entries");
    }

    // ---------------------------------------------------------------------------------------------------------------
    // sliding-window-counter

    /**
     * The counter state as seen at t: window index i, and the counts of windows i - 1 (prev) and i (cur). The estimate
     * at s >= t, if nothing more is admitted, is a continuous non-increasing function made of two linear pieces:
     * prev·(1 - f) + cur in window i, then cur·(1 - f) in window i + 1, then 0.
     */
    private record CounterView(long w, long i, long prev, long cur) {

        Rational windowStart(long index) {
            return Rational.of(index).multiply(w);
        }

        /** The estimate at time s (µs, s >= the start of window i). */
        Rational estimate(Rational s) {
            BigInteger j = s.divide(w).floor();
            Rational f = s.subtract(Rational.of(j).multiply(w)).divide(w);
            Rational oneMinusF = Rational.ONE.subtract(f);
            BigInteger bi = BigInteger.valueOf(i);
            if (j.equals(bi)) {
                return oneMinusF.multiply(prev).add(cur);
            }
            if (j.equals(bi.add(BigInteger.ONE))) {
                return oneMinusF.multiply(cur);
            }
            if (j.compareTo(bi) > 0) {
                return Rational.ZERO;
            }
            throw new IllegalArgumentException("estimate asked before window " + i + ": " + s);
        }

        /**
         * The smallest τ >= 0 with estimate(t + τ) <= target, solved exactly on the piece where the crossing happens.
         */
        Rational waitUntil(Rational target, long t) {
            if (target.signum() < 0) {
                // The estimate never goes below 0; every caller's target is >= 0 by construction.
                throw new IllegalArgumentException("negative target " + target);
            }
            Rational now = Rational.of(t);
            if (estimate(now).compareTo(target) <= 0) {
                return Rational.ZERO;
            }
            Rational crossing;
            if (target.compareTo(Rational.of(cur)) >= 0) {
                // The estimate reaches cur at the end of window i, so the crossing is in window i, on
                // prev·(1 - f) + cur = target  =>  f = 1 - (target - cur) / prev. (prev > 0 here: est > target >= cur.)
                Rational f = Rational.ONE.subtract(target.subtract(cur).divide(prev));
                crossing = windowStart(i).add(f.multiply(w));
            } else {
                // Still above target at the end of window i: the crossing is in window i + 1, on
                // cur·(1 - f) = target  =>  f = 1 - target / cur. (cur > target >= 0.)
                Rational f = Rational.ONE.subtract(target.divide(cur));
                crossing = windowStart(i + 1).add(f.multiply(w));
            }
            Rational tau = crossing.subtract(now);
            // Self-check of the algebra: on a continuous decreasing piece the crossing hits the target exactly.
            if (tau.signum() <= 0 || !estimate(crossing).equals(target)) {
                throw new AssertionError("wait(" + target + ") solved wrongly: tau " + tau + ", estimate there "
                        + estimate(crossing) + " in " + this);
            }
            return tau;
        }
    }

    private Verdict slidingWindowCounter(Limit p, String key, long c, long t) {
        long w = p.windowMicros();
        long l = p.limit();
        long i = Math.floorDiv(t, w);
        CounterState s = state(key, CounterState.class);
        long prev;
        long cur;
        if (s != null && s.index() == i) {
            prev = s.prev();
            cur = s.cur();
        } else if (s != null && s.index() == i - 1) {
            prev = s.cur(); // the stored current window is now the previous one
            cur = 0;
        } else {
            prev = 0; // older than the previous window (or a clock gone backwards): weighs nothing
            cur = 0;
        }
        CounterView view = new CounterView(w, i, prev, cur);
        Rational now = Rational.of(t);
        Rational est = view.estimate(now);
        BigInteger free = Rational.of(l).subtract(est).floor();
        long avail = free.signum() < 0 ? 0 : free.longValueExact(); // est >= 0, so free <= L fits in a long

        Rational resetHere = avail < l ? view.waitUntil(Rational.of(l - avail - 1), t) : Rational.ZERO;
        if (c > l) {
            return Verdict.denied(avail, c, -1, resetHere);
        }
        if (est.add(c).compareTo(Rational.of(l)) > 0) {
            return Verdict.denied(avail, c, retryMs(view.waitUntil(Rational.of(l - c), t)), resetHere);
        }
        // est + c <= L implies c <= floor(L - est) = avail, so avail - c >= 0.
        long newCur = Math.addExact(cur, c);
        CounterView after = new CounterView(w, i, prev, newCur);
        Rational resetCharged = after.waitUntil(Rational.of(l - (avail - c) - 1), t);
        return Verdict.admitted(avail, c, resetHere, resetCharged,
                () -> states.put(key, new CounterState(i, prev, newCur)));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Helpers

    // ---------------------------------------------------------------------------------------------------------------
    // concurrency

    private static final long SECOND = 1_000_000;

    /**
     * At most L units held at once by leases not yet expired; a lease taken at t expires at t + W (a lease counts while
     * t < its expiry). A slot frees when a request ends, which no clock predicts, so the waits are the time until the
     * soonest lease expires, capped at one second.
     */
    private Verdict concurrency(Limit p, String key, long c, long t) {
        LeaseState s = state(key, LeaseState.class);
        Map<String, long[]> leases = s == null ? new HashMap<>() : s.leases();
        Map<String, Long> tombstones = s == null ? new HashMap<>() : s.tombstones();
        leases.values().removeIf(l -> l[1] <= t);
        tombstones.values().removeIf(expiry -> expiry <= t);
        long held = leases.values().stream().mapToLong(l -> l[0]).sum();
        long avail = Math.max(0, p.limit() - held);
        long soonest = held == 0 ? 0
                : Math.min(SECOND, leases.values().stream().mapToLong(l -> l[1]).min().getAsLong() - t);
        Rational soon = Rational.of(soonest);
        if (c > p.limit()) {
            return Verdict.denied(avail, c, -1, soon);
        }
        if (c > avail) {
            return Verdict.denied(avail, c, retryMs(soon), soon);
        }
        if (charging && lease != null && tombstones.containsKey(lease)) {
            // released before this charge came: its caller gave up on it, so it takes nothing, and never will
            return Verdict.denied(avail, c, -1, soon);
        }
        Rational charged = held == 0 ? Rational.of(Math.min(SECOND, p.windowMicros())) : soon;
        String name = lease;
        return Verdict.admitted(avail, c, soon, charged, () -> {
            if (name == null) {
                throw new IllegalStateException("a concurrency policy charged without a lease");
            }
            leases.put(name, new long[] { c, t + p.windowMicros() });
            states.put(key, new LeaseState(leases, tombstones));
        });
    }

    /**
     * Frees the slots {@code lease} holds in the concurrency policies among {@code limits} at {@code t}; where it holds
     * none (not charged yet, denied, expired and trimmed), a tombstone refuses a charge of it for a window.
     */
    void release(Limit[] limits, String[] keys, String lease, long t) {
        for (int i = 0; i < limits.length; i++) {
            if (limits[i].algorithm().equals("concurrency")) {
                LeaseState s = state(keys[i], LeaseState.class);
                if (s == null) {
                    s = new LeaseState(new HashMap<>(), new HashMap<>());
                    states.put(keys[i], s);
                }
                if (s.leases().remove(lease) == null) {
                    s.tombstones().put(lease, t + limits[i].windowMicros());
                }
            }
        }
    }

    /** The leases in flight on a concurrency key at {@code t}, by name: each one's units. */
    Map<String, Long> inFlight(String key, long t) {
        LeaseState s = state(key, LeaseState.class);
        Map<String, Long> held = new java.util.TreeMap<>();
        if (s != null) {
            s.leases().forEach((name, l) -> {
                if (l[1] > t) {
                    held.put(name, l[0]);
                }
            });
        }
        return held;
    }

    /** The state of a key, or null if absent; rejects a key whose state has another shape. */
    private <S> S state(String key, Class<S> shape) {
        Object s = states.get(key);
        if (s == null) {
            return null;
        }
        if (!shape.isInstance(s)) {
            throw new IllegalStateException("key " + key + " holds " + s.getClass().getSimpleName()
                    + " but is used with an algorithm keeping " + shape.getSimpleName());
        }
        return shape.cast(s);
    }

    /** retry-after for a wait of x > 0 µs: at least 1 ms, so that "0" keeps meaning "admitted". */
    private static long retryMs(Rational x) {
        if (x.signum() <= 0) {
            throw new AssertionError("a denied request must have a positive wait, got " + x);
        }
        return Math.max(1, x.divide(MICROS_PER_MS).ceil().longValueExact());
    }

    /** reset for a wait of x µs: 0 when nothing is pending, else at least 1 ms. */
    private static long resetMs(Rational x) {
        return x.signum() <= 0 ? 0 : Math.max(1, x.divide(MICROS_PER_MS).ceil().longValueExact());
    }

    /** A readable dump of the state of one key (for counterexample messages). */
    String describe(String key) {
        Object s = states.get(key);
        if (s == null) {
            return key + ": absent";
        }
        if (s instanceof BucketState b) {
            return key + ": bucket TAT=" + b.tat() + " µs";
        }
        if (s instanceof FixedWindowState f) {
            return key + ": fixed-window index=" + f.index() + " count=" + f.count();
        }
        if (s instanceof LogState log) {
            StringBuilder sb = new StringBuilder(key).append(": sliding-window-log entries (µs x multiplicity) [");
            String sep = "";
            for (Map.Entry<Long, Long> e : log.entries().entrySet()) {
                sb.append(sep).append(e.getKey()).append(" x").append(e.getValue());
                sep = ", ";
            }
            return sb.append(']').toString();
        }
        if (s instanceof LeaseState l) {
            StringBuilder sb = new StringBuilder(key).append(": concurrency leases (units until µs) [");
            String sep = "";
            for (Map.Entry<String, long[]> e : l.leases().entrySet()) {
                sb.append(sep).append(e.getKey()).append(' ').append(e.getValue()[0]).append(" until ")
                        .append(e.getValue()[1]);
                sep = ", ";
            }
            return sb.append(']').toString();
        }
        CounterState c = (CounterState) s;
        return key + ": sliding-window-counter index=" + c.index() + " prev=" + c.prev() + " cur=" + c.cur();
    }
}
