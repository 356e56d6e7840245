package dev.ratelimit.benchmark;

import java.util.Collection;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

import jakarta.inject.Singleton;

import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.Policy;

/**
 * The extension's decision metrics, counted in this process: the limiter reports every decision here by outcome, as
 * it reports them to Micrometer's {@code ratelimit.decisions} in an application that has Micrometer (this one has
 * not: Micrometer's HTTP instrumentation would be measured with the endpoints). The HTTP suite reads them around each
 * run to prove that every limited response was decided by Redis ({@code allowed}, never a failure mode's outcome).
 * The cost per decision is of Micrometer's order: one {@link LongAdder} per outcome, one for the backend latency; it
 * counts only while the HTTP suite runs ({@link #counting}), so the limiter suite measures as without metrics.
 * <p>
 * Quota leasing ({@code lease}) is counted always: the slices granted and the units they held, the slices that ended
 * with units given back and those units. A slice is counted once, not per decision, so counting costs the limiter
 * suite nothing it would notice; its leased rows read {@link #leasing} around each measured period.
 */
@Singleton
public class DecisionTally implements RateLimitMetrics {

    private static final Outcome[] OUTCOMES = Outcome.values();

    private final LongAdder[] byOutcome = new LongAdder[OUTCOMES.length];
    /** Not read: recorded so that a decision costs here about what Micrometer's latency timer makes it cost. */
    private final LongAdder latencyNanos = new LongAdder();
    private final LongAdder backendCalls = new LongAdder();
    private final LongAdder slices = new LongAdder();
    private final LongAdder slicedUnits = new LongAdder();
    private final LongAdder returns = new LongAdder();
    private final LongAdder returnedUnits = new LongAdder();
    private volatile boolean counting;

    public DecisionTally() {
        for (int i = 0; i < byOutcome.length; i++) {
            byOutcome[i] = new LongAdder();
        }
    }

    @Override
    public void register(Collection<Policy> policies, String backend, IntSupplier breakerState) {
    }

    @Override
    public void decided(String policy, Outcome outcome) {
        if (counting) {
            byOutcome[outcome.ordinal()].increment();
        }
    }

    @Override
    public void backendLatency(long nanos) {
        if (counting) {
            latencyNanos.add(nanos);
            backendCalls.increment();
        }
    }

    @Override
    public void backendError(String kind) {
    }

    @Override
    public void leased(String policy, long units) {
        slices.increment();
        slicedUnits.add(units);
    }

    @Override
    public void leaseReturned(String policy, long units) {
        returns.increment();
        returnedUnits.add(units);
    }

    /**
     * Leasing so far, every policy: slices granted, the units they held, slices that gave units back, those units.
     */
    long[] leasing() {
        return new long[] { slices.sum(), slicedUnits.sum(), returns.sum(), returnedUnits.sum() };
    }

    /** Counts from now on (or no longer). */
    void counting(boolean on) {
        counting = on;
    }

    /** The decisions counted so far, by {@link Outcome#ordinal()}. */
    long[] snapshot() {
        long[] out = new long[byOutcome.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = byOutcome[i].sum();
        }
        return out;
    }

    /** What happened between two snapshots, as {@code outcome=count} for every outcome that moved. */
    static String describe(long[] before, long[] after) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < before.length; i++) {
            long d = after[i] - before[i];
            if (d != 0) {
                sb.append(sb.length() == 0 ? "" : ", ").append(OUTCOMES[i].tag()).append('=').append(d);
            }
        }
        return sb.length() == 0 ? "none" : sb.toString();
    }
}
