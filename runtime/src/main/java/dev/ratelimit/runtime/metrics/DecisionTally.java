package dev.ratelimit.runtime.metrics;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

import jakarta.inject.Singleton;

import dev.ratelimit.runtime.policy.Policy;

/**
 * Decisions per policy and outcome since the application started, for the Dev UI. The build registers it as a bean
 * in dev mode only: elsewhere the limiter pays nothing for it. Where it exists, the limiter reports through
 * {@link #counting(RateLimitMetrics)}, which counts here and passes every call on (to Micrometer, or to nothing), so
 * the decisions are counted at the one place the metrics already count them.
 */
@Singleton
public class DecisionTally {

    private static final RateLimitMetrics.Outcome[] OUTCOMES = RateLimitMetrics.Outcome.values();

    /** Per policy, one adder per outcome (by ordinal); written once, when the limiter registers its policies. */
    private volatile Map<String, LongAdder[]> counts = Map.of();

    /** Metrics that count each decision here, then report everything to {@code next}. */
    public RateLimitMetrics counting(RateLimitMetrics next) {
        return new RateLimitMetrics() {
            @Override
            public void register(Collection<Policy> policies, String backend, IntSupplier breakerState) {
                Map<String, LongAdder[]> byPolicy = new HashMap<>();
                for (Policy p : policies) {
                    LongAdder[] adders = new LongAdder[OUTCOMES.length];
                    for (int i = 0; i < adders.length; i++) {
                        adders[i] = new LongAdder();
                    }
                    byPolicy.put(p.name(), adders);
                }
                counts = Map.copyOf(byPolicy);
                next.register(policies, backend, breakerState);
            }

            @Override
            public void decided(String policy, Outcome outcome) {
                LongAdder[] adders = counts.get(policy);
                if (adders != null) {
                    adders[outcome.ordinal()].increment();
                }
                next.decided(policy, outcome);
            }

            @Override
            public void backendLatency(long nanos) {
                next.backendLatency(nanos);
            }

            @Override
            public void backendError(String kind) {
                next.backendError(kind);
            }

            @Override
            public void resolverFailed(String policy, String resolver) {
                next.resolverFailed(policy, resolver);
            }

            @Override
            public void settled(String policy, long units, boolean failed) {
                next.settled(policy, units, failed);
            }

            @Override
            public void overridden(String policy, boolean set) {
                next.overridden(policy, set);
            }

            @Override
            public void leased(String policy, long units) {
                next.leased(policy, units);
            }

            @Override
            public void leaseReturned(String policy, long units) {
                next.leaseReturned(policy, units);
            }

            @Override
            public void waited(String policy, long nanos, boolean admitted) {
                next.waited(policy, nanos, admitted);
            }
        };
    }

    /**
     * The counts so far: per policy (sorted by name), per outcome tag ({@code allowed}, {@code denied},
     * {@code shadow-denied}, {@code failed-open}, {@code failed-closed}, {@code local-fallback}, {@code deny-cache}),
     * every outcome present, zeros included.
     */
    public Map<String, Map<String, Long>> snapshot() {
        Map<String, Map<String, Long>> snapshot = new TreeMap<>();
        counts.forEach((policy, adders) -> {
            Map<String, Long> byOutcome = new LinkedHashMap<>();
            for (RateLimitMetrics.Outcome o : OUTCOMES) {
                byOutcome.put(o.tag(), adders[o.ordinal()].sum());
            }
            snapshot.put(policy, byOutcome);
        });
        return snapshot;
    }
}
