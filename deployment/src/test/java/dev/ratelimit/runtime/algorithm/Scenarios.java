package dev.ratelimit.runtime.algorithm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import dev.ratelimit.runtime.algorithm.ReferenceModel.Limit;

/**
 * Generated configurations and request sequences over the whole space the extension accepts, and their simpler
 * variants for shrinking (see {@link PropertySearch}).
 * <p>
 * Limits 1..10,000,000 (small ones most often, round and prime large ones too), windows 1 ms..7 days (round ones and
 * any microsecond count), burst 1..limit and above it, one to three policies per call (some shadow), start times at
 * the magnitude of Redis {@code TIME}, gaps from none through fractions of a unit to several windows, costs from 1
 * to the capacity and one above it, dry runs, and the calls grouped into batch runs.
 */
final class Scenarios {

    /** About the Redis clock in 2026 (µs); each case starts at a random offset from it. */
    static final long EPOCH = 1_767_225_600_000_000L;
    static final long MS = 1_000;
    static final long DAY = 86_400_000_000L;
    static final long MAX_LIMIT = 10_000_000;
    /**
     * A log and a set of leases store one member per unit: their costs (not their limits) stay small enough for
     * thousands of cases.
     */
    static final long MAX_LOG_COST = 2_000;
    private static final String[] ALGORITHMS = Arrays.stream(Algorithm.values()).map(Algorithm::configName)
            .toArray(String[]::new);
    private static final long[] ROUND_WINDOWS = { MS, 1_000 * MS, 60_000 * MS, 3_600_000 * MS, DAY, 7 * DAY };

    private Scenarios() {
    }

    /**
     * One call: the time since the previous one, each policy's cost, a dry run, whether a new batch run starts, and
     * whose concurrency slots are released before it: -1 none; below {@link #AHEAD} an index into the calls charged
     * so far, modulo their number (a call released before, or one without a concurrency policy, frees nothing); from
     * {@link #AHEAD} on, the lease of the call {@code release - AHEAD} steps on from this one, released before it is
     * charged (a release that overtook its charge: the charge must then take nothing), whether that call is admitted,
     * denied, a dry run, or never made.
     */
    record Step(long gap, long[] costs, boolean dryRun, boolean newRun, int release, boolean reserve, int settle,
            Change change, long turn) {
        Step(long gap, long[] costs, boolean dryRun, boolean newRun, int release) {
            this(gap, costs, dryRun, newRun, release, false, -1, null, 0);
        }

        /** This step without its override change. */
        Step withoutChange() {
            return new Step(gap, costs, dryRun, newRun, release, reserve, settle, null, turn);
        }

        /** This step deciding now, taking no turn. */
        Step withoutTurn() {
            return new Step(gap, costs, dryRun, newRun, release, reserve, settle, change, 0);
        }

        @Override
        public String toString() {
            String freed = release < 0 ? "" : release >= AHEAD ? " release the lease of step +" + (release - AHEAD)
                    : " release #" + release;
            String settled = settle < 0 ? "" : " settle reservation #" + settle + " at these actual costs;";
            return "+" + gap + "us" + freed + settled + (change == null ? "" : " " + change + ";")
                    + (reserve ? " reserve" : "") + (turn > 0 ? " waiting up to " + turn + "us" : "") + " cost " + Arrays.toString(costs) + (dryRun ? " dry" : "")
                    + (newRun ? " | new run" : "");
        }
    }

    /**
     * A change of the override of policy {@code policy}'s key before a step's call: cleared, or set to its limit,
     * window and burst (0: not set), applying for {@code expiresIn} microseconds from the step's time (0: for ever).
     * A policy without overrides ignores it; one the extension would refuse for its policy is not made.
     */
    record Change(int policy, boolean clear, long limit, long window, long burst, long expiresIn) {
        @Override
        public String toString() {
            return clear ? "clear override of p" + policy
                    : "override p" + policy + (limit > 0 ? " limit=" + limit : "") + (window > 0 ? " window=" + window
                            + "us" : "") + (burst > 0 ? " burst=" + burst : "")
                            + (expiresIn > 0 ? " for " + expiresIn + "us" : "");
        }
    }

    /** Step.release from here on names a lease of a call yet to come (see {@link Step}). */
    static final int AHEAD = 1 << 20;

    /** Policies (one key each) and the calls made on them; every call names all of them. */
    record Scenario(List<Limit> limits, long start, List<Step> steps) {
        @Override
        public String toString() {
            StringBuilder s = new StringBuilder("\n  start EPOCH + " + start + "us");
            for (Limit l : limits) {
                s.append("\n  ").append(l.algorithm()).append(" limit=").append(l.limit()).append(" window=")
                        .append(l.windowMicros()).append("us burst=").append(l.burst())
                        .append(l.shadow() ? " shadow" : "")
                        .append(l.blockMicros() > 0 ? " block-for=" + l.blockMicros() + "us" : "")
                        .append(l.overrides() ? " overrides" : "");
            }
            for (Step st : steps) {
                s.append("\n    ").append(st);
            }
            return s.toString();
        }
    }

    static Scenario generate(Random r) {
        int n = pick(r, 60, 25, 15) + 1;
        List<Limit> limits = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            limits.add(limit(r));
        }
        int count = r.nextInt(4) == 0 ? 1 + r.nextInt(40) : 1 + r.nextInt(12);
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Step st = step(r, limits);
            if (i > 0 && r.nextInt(5) == 0) {
                // a burst of identical calls at one instant, as on a hot key: the same costs, charged, in the same run
                Step prev = steps.get(i - 1);
                st = new Step(0, prev.costs(), false, false, -1);
            }
            steps.add(st);
        }
        return new Scenario(limits, (long) (r.nextDouble() * 1e12), steps);
    }

    static Limit limit(Random r) {
        String alg = ALGORITHMS[r.nextInt(ALGORITHMS.length)];
        long limit;
        switch (pick(r, 40, 25, 25, 10)) {
            case 0:
                limit = 1 + r.nextInt(10);
                break;
            case 1:
                limit = 1 + r.nextInt(1_000);
                break;
            case 2:
                limit = logUniform(r, 1, MAX_LIMIT);
                break;
            default:
                limit = new long[] { MAX_LIMIT, 9_999_991, 3_000_000 }[r.nextInt(3)];
        }
        long window;
        switch (pick(r, 30, 50, 20)) {
            case 0:
                window = ROUND_WINDOWS[r.nextInt(ROUND_WINDOWS.length)];
                break;
            case 1:
                window = logUniform(r, MS, 7 * DAY);
                break;
            default:
                window = MS + r.nextInt(9_000);
        }
        long burst = limit;
        if (Algorithm.fromConfigName(alg).usesBurst()) {
            switch (pick(r, 25, 25, 35, 15)) {
                case 0:
                    burst = 1;
                    break;
                case 1:
                    burst = limit;
                    break;
                case 2:
                    burst = 1 + (long) (r.nextDouble() * limit);
                    break;
                default:
                    burst = Math.min(MAX_LIMIT, limit + (long) (r.nextDouble() * 3 * limit));
            }
        }
        boolean shadow = r.nextInt(10) == 0;
        long block = 0;
        if (!shadow && !Algorithm.fromConfigName(alg).holdsLeases() && r.nextInt(4) == 0) {
            // a lock-out (block-for) from 1 ms, about the window's size or any length up to 3 windows
            block = switch (pick(r, 40, 30, 30)) {
                case 0 -> ROUND_WINDOWS[r.nextInt(ROUND_WINDOWS.length)];
                case 1 -> window;
                default -> logUniform(r, MS, Math.max(MS, 3 * window));
            };
        }
        return new Limit(alg, limit, window, burst, shadow, block, r.nextInt(3) == 0);
    }

    /** A change of the override of one of {@code limits}' keys taking overrides, or null. */
    static Change change(Random r, List<Limit> limits) {
        List<Integer> taking = new ArrayList<>();
        for (int i = 0; i < limits.size(); i++) {
            if (limits.get(i).overrides()) {
                taking.add(i);
            }
        }
        if (taking.isEmpty() || r.nextInt(4) != 0) {
            return null;
        }
        int i = taking.get(r.nextInt(taking.size()));
        Limit l = limits.get(i);
        if (r.nextInt(5) == 0) {
            return new Change(i, true, 0, 0, 0, 0);
        }
        // values drawn as a policy's are, each set or not
        Limit v = limit(r);
        Algorithm alg = Algorithm.fromConfigName(l.algorithm());
        long limit = r.nextBoolean() ? v.limit() : 0;
        long window = alg.usesBurst() && r.nextInt(3) == 0 ? v.windowMicros() : 0;
        long burst = alg.usesBurst() && r.nextInt(3) == 0 ? Math.max(1, Math.min(MAX_LIMIT, v.burst())) : 0;
        if (limit == 0 && window == 0 && burst == 0) {
            limit = v.limit();
        }
        long expiresIn = r.nextBoolean() ? 0 : logUniform(r, 1, Math.max(2, 3 * l.windowMicros()));
        return new Change(i, false, limit, window, burst, expiresIn);
    }

    static Step step(Random r, List<Limit> limits) {
        long unit = limits.stream().mapToLong(l -> Math.max(1, l.windowMicros() / l.limit())).min().orElse(1);
        long window = limits.stream().mapToLong(Limit::windowMicros).max().orElse(1);
        long gap;
        switch (pick(r, 35, 30, 20, 10, 5)) {
            case 0:
                gap = 0;
                break;
            case 1:
                gap = (long) (r.nextDouble() * 3 * unit);
                break;
            case 2:
                gap = (long) (r.nextDouble() * window);
                break;
            case 3:
                gap = window + (long) (r.nextDouble() * 2 * window);
                break;
            default:
                gap = r.nextInt(10);
        }
        long[] costs = new long[limits.size()];
        for (int i = 0; i < costs.length; i++) {
            Limit l = limits.get(i);
            long most = mostCost(l);
            switch (pick(r, 55, 15, 15, 8, 7)) {
                case 0:
                    costs[i] = 1;
                    break;
                case 1:
                    costs[i] = 1 + r.nextInt((int) Math.min(most, 10));
                    break;
                case 2:
                    costs[i] = 1 + (long) (r.nextDouble() * most);
                    break;
                case 3:
                    costs[i] = most;
                    break;
                default:
                    costs[i] = aboveCapacity(l);
            }
        }
        int release = switch (pick(r, 67, 25, 8)) {
            case 0 -> -1;
            case 1 -> r.nextInt(8);
            default -> AHEAD + r.nextInt(4); // this call's own lease, or one of the next three
        };
        boolean dry = r.nextInt(10) == 0;
        // a reservation (a charge whose time its settlement names), and the settlement of one made before: its
        // refund per policy is at most this step's cost (and what the reservation charged)
        boolean reserve = !dry && r.nextInt(4) == 0;
        int settle = r.nextInt(5) == 0 ? r.nextInt(6) : -1;
        // a call that may wait (max-wait, a plain charge): up to a window or three, or a few microseconds
        long turn = 0;
        if (!dry && !reserve && r.nextInt(4) == 0) {
            long w = limits.get(r.nextInt(limits.size())).windowMicros();
            turn = r.nextBoolean() ? 1 + (long) (r.nextDouble() * 3 * w) : 1 + r.nextInt(50);
        }
        return new Step(gap, costs, dry, r.nextInt(4) == 0, release, reserve, settle, change(r, limits), turn);
    }

    /**
     * A cost above the policy's capacity: never admitted on its own values. A key's override may raise the capacity,
     * and a log or a set of leases stores a member per unit: with overrides, theirs stays within what such a key
     * stores in a case.
     */
    private static long aboveCapacity(Limit l) {
        boolean members = l.algorithm().equals(Algorithm.SLIDING_WINDOW_LOG.configName())
                || l.algorithm().equals(Algorithm.CONCURRENCY.configName());
        return members && l.overrides() ? Math.min(l.burst() + 1, MAX_LOG_COST + 1) : l.burst() + 1;
    }

    private static long mostCost(Limit l) {
        // a log and a set of leases store one member per unit
        return l.algorithm().equals(Algorithm.SLIDING_WINDOW_LOG.configName())
                || l.algorithm().equals(Algorithm.CONCURRENCY.configName()) ? Math.min(l.burst(), MAX_LOG_COST)
                        : l.burst();
    }

    /** Simpler variants of a scenario, the boldest first: fewer steps, fewer policies, then smaller values. */
    static List<Scenario> simpler(Scenario s) {
        List<Scenario> out = new ArrayList<>();
        List<Step> steps = s.steps();
        int n = steps.size();
        if (n > 1) {
            out.add(withSteps(s, steps.subList(0, n / 2)));
            out.add(withSteps(s, steps.subList(n / 2, n)));
            for (int i = n - 1; i >= 0; i--) {
                List<Step> fewer = new ArrayList<>(steps);
                fewer.remove(i);
                out.add(withSteps(s, fewer));
            }
        }
        for (int i = 0; i < s.limits().size() && s.limits().size() > 1; i++) {
            out.add(withoutLimit(s, i));
        }
        if (s.start() != 0) {
            out.add(new Scenario(s.limits(), 0, steps));
            out.add(new Scenario(s.limits(), s.start() / 2, steps));
        }
        for (int i = 0; i < n; i++) {
            Step st = steps.get(i);
            if (st.gap() != 0) {
                out.add(withStep(s, i, new Step(0, st.costs(), st.dryRun(), st.newRun(), st.release(), st.reserve(), st.settle(), st.change(), st.turn())));
                out.add(withStep(s, i, new Step(st.gap() / 2, st.costs(), st.dryRun(), st.newRun(), st.release(), st.reserve(), st.settle(), st.change(), st.turn())));
            }
            for (int k = 0; k < st.costs().length; k++) {
                long c = st.costs()[k];
                if (c > 1) {
                    out.add(withStep(s, i, new Step(st.gap(), with(st.costs(), k, 1), st.dryRun(), st.newRun(), st.release(), st.reserve(), st.settle(), st.change(), st.turn())));
                    out.add(withStep(s, i, new Step(st.gap(), with(st.costs(), k, c / 2), st.dryRun(), st.newRun(), st.release(), st.reserve(), st.settle(), st.change(), st.turn())));
                    out.add(withStep(s, i, new Step(st.gap(), with(st.costs(), k, c - 1), st.dryRun(), st.newRun(), st.release(), st.reserve(), st.settle(), st.change(), st.turn())));
                }
            }
            if (st.change() != null) {
                out.add(withStep(s, i, st.withoutChange()));
            }
            if (st.turn() > 0) {
                out.add(withStep(s, i, st.withoutTurn()));
                out.add(withStep(s, i, new Step(st.gap(), st.costs(), st.dryRun(), st.newRun(), st.release(),
                        st.reserve(), st.settle(), st.change(), (st.turn() + 1) / 2)));
            }
            if (st.dryRun()) {
                out.add(withStep(s, i, new Step(st.gap(), st.costs(), false, st.newRun(), st.release(), st.reserve(), st.settle(), st.change(), st.turn())));
            }
            if (st.newRun()) {
                out.add(withStep(s, i, new Step(st.gap(), st.costs(), st.dryRun(), false, st.release(), st.reserve(), st.settle(), st.change(), st.turn())));
            }
            if (st.settle() >= 0) {
                out.add(withStep(s, i, new Step(st.gap(), st.costs(), st.dryRun(), st.newRun(), st.release(),
                        st.reserve(), -1, st.change(), st.turn())));
            }
            if (st.reserve()) {
                out.add(withStep(s, i, new Step(st.gap(), st.costs(), st.dryRun(), st.newRun(), st.release(),
                        false, st.settle(), st.change(), st.turn())));
            }
            if (st.release() >= 0) {
                out.add(withStep(s, i, new Step(st.gap(), st.costs(), st.dryRun(), st.newRun(), -1, st.reserve(), st.settle(), st.change(), st.turn())));
                if (st.release() > AHEAD) {
                    out.add(withStep(s, i, new Step(st.gap(), st.costs(), st.dryRun(), st.newRun(), AHEAD, st.reserve(), st.settle(), st.change(), st.turn())));
                }
            }
        }
        for (int i = 0; i < s.limits().size(); i++) {
            Limit l = s.limits().get(i);
            if (l.shadow()) {
                out.add(withLimit(s, i, l.with(l.limit(), l.windowMicros(), l.burst(), false)));
            }
            if (l.overrides()) {
                out.add(withLimit(s, i, l.withOverrides(false)));
            }
            if (l.blockMicros() > 0) {
                out.add(withLimit(s, i, new Limit(l.algorithm(), l.limit(), l.windowMicros(), l.burst(), false, 0,
                        l.overrides())));
                for (long block : new long[] { MS, l.blockMicros() / 2 }) {
                    if (block >= MS && block < l.blockMicros()) {
                        out.add(withLimit(s, i, new Limit(l.algorithm(), l.limit(), l.windowMicros(), l.burst(), false,
                                block, l.overrides())));
                    }
                }
            }
            boolean bucket = Algorithm.fromConfigName(l.algorithm()).usesBurst();
            for (long limit : new long[] { 1, l.limit() / 2, l.limit() - 1 }) {
                if (limit >= 1 && limit < l.limit()) {
                    long burst = bucket ? Math.min(l.burst(), MAX_LIMIT) : limit;
                    out.add(withLimit(s, i, l.with(limit, l.windowMicros(), burst, l.shadow())));
                }
            }
            if (bucket) {
                for (long burst : new long[] { 1, l.limit(), l.burst() / 2, l.burst() - 1 }) {
                    if (burst >= 1 && burst < l.burst()) {
                        out.add(withLimit(s, i, l.with(l.limit(), l.windowMicros(), burst, l.shadow())));
                    }
                }
            }
            for (long window : new long[] { MS, 1_000 * MS, l.windowMicros() / 2, l.windowMicros() / MS * MS }) {
                if (window >= MS && window < l.windowMicros()) {
                    out.add(withLimit(s, i, l.with(l.limit(), window, l.burst(), l.shadow())));
                }
            }
        }
        return out;
    }

    private static Scenario withSteps(Scenario s, List<Step> steps) {
        return new Scenario(s.limits(), s.start(), new ArrayList<>(steps));
    }

    private static Scenario withStep(Scenario s, int i, Step st) {
        List<Step> steps = new ArrayList<>(s.steps());
        steps.set(i, st);
        return new Scenario(s.limits(), s.start(), steps);
    }

    /** The scenario with policy i replaced, every cost kept within what the new policy's generator would draw. */
    private static Scenario withLimit(Scenario s, int i, Limit l) {
        List<Limit> limits = new ArrayList<>(s.limits());
        limits.set(i, l);
        List<Step> steps = new ArrayList<>();
        for (Step st : s.steps()) {
            long[] costs = st.costs().clone();
            costs[i] = Math.min(costs[i], costs[i] > mostCost(l) ? aboveCapacity(l) : mostCost(l));
            steps.add(new Step(st.gap(), costs, st.dryRun(), st.newRun(), st.release(), st.reserve(), st.settle(), st.change(), st.turn()));
        }
        return new Scenario(limits, s.start(), steps);
    }

    private static Scenario withoutLimit(Scenario s, int i) {
        List<Limit> limits = new ArrayList<>(s.limits());
        limits.remove(i);
        List<Step> steps = new ArrayList<>();
        for (Step st : s.steps()) {
            long[] costs = new long[limits.size()];
            for (int k = 0, j = 0; k < st.costs().length; k++) {
                if (k != i) {
                    costs[j++] = st.costs()[k];
                }
            }
            Change c = st.change();
            if (c != null) {
                // the removed policy's change goes; those of the policies after it follow their policy
                c = c.policy() == i ? null : c.policy() < i ? c
                        : new Change(c.policy() - 1, c.clear(), c.limit(), c.window(), c.burst(), c.expiresIn());
            }
            steps.add(new Step(st.gap(), costs, st.dryRun(), st.newRun(), st.release(), st.reserve(), st.settle(), c, st.turn()));
        }
        return new Scenario(limits, s.start(), steps);
    }

    private static long[] with(long[] a, int i, long v) {
        long[] b = a.clone();
        b[i] = v;
        return b;
    }

    /** An index drawn with the given weights. */
    private static int pick(Random r, int... weights) {
        int total = Arrays.stream(weights).sum();
        int x = r.nextInt(total);
        for (int i = 0; i < weights.length; i++) {
            x -= weights[i];
            if (x < 0) {
                return i;
            }
        }
        return weights.length - 1;
    }

    private static long logUniform(Random r, long from, long to) {
        double v = Math.exp(Math.log(from) + r.nextDouble() * (Math.log(to) - Math.log(from)));
        return Math.max(from, Math.min(to, Math.round(v)));
    }
}
