package dev.ratelimit.runtime.metrics;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import jakarta.inject.Singleton;

import dev.ratelimit.runtime.policy.Policy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The Micrometer meters of the extension: {@code ratelimit.decisions} (tags {@code policy},
 * {@code outcome}), {@code ratelimit.backend.latency} (tag {@code backend}) and
 * {@code ratelimit.circuit.state}, and {@code ratelimit.backend.errors} (tags {@code backend}, {@code kind}).
 * <p>
 * This is the only class that references Micrometer. It is registered as a bean by the build only
 * when the metrics capability says Micrometer is present: Micrometer is an optional dependency, and
 * a class referring to absent classes would fail a native build (and a JVM start, once loaded).
 * Everything else talks to {@link RateLimitMetrics}.
 */
@Singleton
public class MicrometerMetrics implements RateLimitMetrics {

    static final String DECISIONS = "ratelimit.decisions";
    static final String LATENCY = "ratelimit.backend.latency";
    static final String CIRCUIT_STATE = "ratelimit.circuit.state";
    static final String ERRORS = "ratelimit.backend.errors";
    static final String RESOLVER_FAILURES = "ratelimit.resolver.failures";
    static final String SETTLEMENTS = "ratelimit.settlements";
    static final String SETTLED_UNITS = "ratelimit.settled.units";
    static final String LEASE_SLICES = "ratelimit.lease.slices";
    static final String WAITS = "ratelimit.waits";
    static final String LEASE_UNITS = "ratelimit.lease.units";
    static final String OVERRIDES = "ratelimit.overrides";

    private static final Outcome[] OUTCOMES = Outcome.values();

    private final MeterRegistry registry;
    /** Per policy, one counter per outcome (by ordinal); read on every decision, written once. */
    private volatile Map<String, Counter[]> counters = Map.of();
    private volatile Timer latency;
    private volatile String backend = "redis";

    MicrometerMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void register(Collection<Policy> policies, String backend, IntSupplier breakerState) {
        Map<String, Counter[]> byPolicy = new HashMap<>();
        for (Policy p : policies) {
            byPolicy.put(p.name(), countersFor(p.name()));
        }
        counters = Map.copyOf(byPolicy);
        this.backend = backend;
        latency = Timer.builder(LATENCY)
                .description("Time of the rate-limit backend calls, failed and timed-out ones included")
                .tag("backend", backend)
                .register(registry);
        if (breakerState != null) {
            Gauge.builder(CIRCUIT_STATE, breakerState, IntSupplier::getAsInt)
                    .description("State of the rate-limit backend circuit breaker: 0 closed, 1 open, 2 half-open")
                    .tag("backend", backend)
                    .strongReference(true)
                    .register(registry);
        }
    }

    private Counter[] countersFor(String policy) {
        Counter[] c = new Counter[OUTCOMES.length];
        for (Outcome o : OUTCOMES) {
            c[o.ordinal()] = Counter.builder(DECISIONS)
                    .description("Rate-limit decisions, per policy and outcome")
                    .tag("policy", policy)
                    .tag("outcome", o.tag())
                    .register(registry);
        }
        return c;
    }

    @Override
    public void decided(String policy, Outcome outcome) {
        Counter[] c = counters.get(policy);
        if (c != null) {
            c[outcome.ordinal()].increment();
        }
    }

    @Override
    public void backendError(String kind) {
        // rare by nature: looked up in the registry each time rather than cached per kind
        Counter.builder(ERRORS)
                .description("Error replies of the rate-limit backend (it was up but did not decide), by kind")
                .tag("backend", backend)
                .tag("kind", kind)
                .register(registry)
                .increment();
    }

    @Override
    public void resolverFailed(String policy, String resolver) {
        // rare by nature, as backendError
        Counter.builder(RESOLVER_FAILURES)
                .description("Exceptions of the application's key and plan resolvers (the request was decided on "
                        + "the client address or the base plan instead), by policy and resolver")
                .tag("policy", policy)
                .tag("resolver", resolver)
                .register(registry)
                .increment();
    }

    @Override
    public void settled(String policy, long units, boolean failed) {
        // once per reservation and policy, far rarer than decisions: looked up in the registry each time
        String outcome = failed ? "failed" : units > 0 ? "refunded" : units < 0 ? "debited" : "unchanged";
        Counter.builder(SETTLEMENTS)
                .description("Settlements of reserved costs, per policy and outcome (refunded, debited, unchanged: "
                        + "another policy of the settlement moved units, failed: the estimate stays charged)")
                .tag("policy", policy)
                .tag("outcome", outcome)
                .register(registry)
                .increment();
        if (!failed && units != 0) {
            Counter.builder(SETTLED_UNITS)
                    .description("Units settlements gave back (refunded) or charged beyond the estimate (debited)")
                    .tag("policy", policy)
                    .tag("outcome", outcome)
                    .register(registry)
                    .increment(Math.abs(units));
        }
    }

    @Override
    public void leased(String policy, long units) {
        // once per slice, which serves many decisions: looked up in the registry each time
        Counter.builder(LEASE_SLICES)
                .description("Slices of hot keys' budgets leased from the backend (lease), per policy")
                .tag("policy", policy)
                .register(registry)
                .increment();
        leaseUnits(policy, "leased", units);
    }

    @Override
    public void leaseReturned(String policy, long units) {
        leaseUnits(policy, "returned", units);
    }

    private void leaseUnits(String policy, String how, long units) {
        Counter.builder(LEASE_UNITS)
                .description("Units of leased slices, per policy: leased (charged in the backend) and returned "
                        + "(not used, given back when the slice ended)")
                .tag("policy", policy)
                .tag("outcome", how)
                .register(registry)
                .increment(units);
    }

    @Override
    public void waited(String policy, long nanos, boolean admitted) {
        Timer.builder(WAITS)
                .description("How long calls of a policy with max-wait waited for admission, per outcome: admitted at "
                        + "the end, or timed-out (denied: the wait allowed ran out)")
                .tag("policy", policy)
                .tag("outcome", admitted ? "admitted" : "timed-out")
                .register(registry)
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void overridden(String policy, boolean set) {
        Counter.builder(OVERRIDES)
                .description("Per-key overrides set and cleared through this instance, per policy")
                .tag("policy", policy)
                .tag("action", set ? "set" : "cleared")
                .register(registry)
                .increment();
    }

    @Override
    public void backendLatency(long nanos) {
        Timer t = latency;
        if (t != null) {
            t.record(nanos, TimeUnit.NANOSECONDS);
        }
    }
}
