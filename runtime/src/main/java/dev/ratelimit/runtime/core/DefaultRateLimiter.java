package dev.ratelimit.runtime.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitOverride;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Reservation;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.backend.Lease;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.backend.RedisKeys;
import dev.ratelimit.runtime.backend.local.LocalBackend;
import dev.ratelimit.runtime.config.RateLimitRuntimeConfig;
import dev.ratelimit.runtime.leasing.QuotaLeases;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.policy.PolicyValidator;
import dev.ratelimit.runtime.policy.RateLimitSpec;
import dev.ratelimit.runtime.policy.RateLimitedMethods;
import dev.ratelimit.runtime.resilience.CallTimeouts;
import dev.ratelimit.runtime.resilience.CircuitBreaker;
import dev.ratelimit.runtime.resilience.DecidedBy;
import dev.ratelimit.runtime.resilience.DenyCache;
import dev.ratelimit.runtime.resilience.FailureModes;
import dev.ratelimit.runtime.tracing.RateLimitTracing;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;

/**
 * The limiter: turns checks into backend calls and backend replies into decisions. The same (policy, key) twice in
 * one call is one charge ({@link MergedChecks}); a call to Redis is guarded by {@link RemoteDecisions}; every
 * decision is counted ({@link DecisionCounts}) and traced ({@link RateLimitTracing}): this is the one place the
 * decisions of the filter, the interceptor and the programmatic API all pass.
 */
public class DefaultRateLimiter implements RateLimiter {

    private final PolicyRegistry policies;
    private final RateLimitBackend backend;
    private final LocalBackend local;
    private final String keyPrefix;
    /** The keys of recent calls, built once. */
    private final BuiltKeys keys;
    private final Duration timeout;
    private final int failClosedStatus;
    /** Null with the local backend or when disabled. */
    private final CircuitBreaker breaker;
    /** Null with the local backend or when disabled. */
    private final DenyCache denyCache;
    private final DecisionCounts counts;
    private final RateLimitTracing tracing;
    /** Null with the local backend. */
    private final RemoteDecisions remote;
    /** Null with the local backend, or when no policy leases. */
    private final LeasedDecisions leased;
    private final Lease.Ids leaseIds = new Lease.Ids();
    private final RateLimitMetrics metrics;
    private final KeyOverrides overrides;
    private final Waits waits;
    private final LimitedKeys limited;

    /** A limiter with the resilience settings of {@code config}, tracing nothing. */
    public DefaultRateLimiter(PolicyRegistry policies, RateLimitBackend backend, LocalBackend local,
            RateLimitRuntimeConfig config, RateLimitMetrics metrics) {
        this(policies, backend, local, config, metrics, RateLimitTracing.NONE);
    }

    /** A limiter with the resilience settings of {@code config}, recording its decisions on {@code tracing}. */
    public DefaultRateLimiter(PolicyRegistry policies, RateLimitBackend backend, LocalBackend local,
            RateLimitRuntimeConfig config, RateLimitMetrics metrics, RateLimitTracing tracing) {
        this.tracing = tracing;
        this.metrics = metrics;
        this.policies = policies;
        this.backend = backend;
        this.local = local;
        this.keyPrefix = config.keyPrefix();
        this.keys = new BuiltKeys(keyPrefix);
        this.timeout = config.redis().timeout();
        this.failClosedStatus = config.failClosedStatus();
        boolean shared = backend != local;
        if (shared && config.circuitBreaker().enabled()) {
            this.breaker = new CircuitBreaker(backend.name(), config.circuitBreaker().failureThreshold(),
                    config.circuitBreaker().openDuration(), timeout, System::nanoTime);
        } else {
            this.breaker = null;
        }
        if (shared && config.denyCache().enabled()) {
            this.denyCache = new DenyCache(config.denyCache().maxEntries(), config.denyCache().safetyMargin(),
                    System::nanoTime);
        } else {
            this.denyCache = null;
        }
        if (denyCache != null) {
            // the policies annotated methods settle: their denials are held briefly from the start, on every instance
            RateLimitedMethods.all().values().forEach(specs -> specs.stream().filter(RateLimitSpec::settle)
                    .forEach(s -> denyCache.settles(s.policy())));
        }
        this.counts = new DecisionCounts(metrics, !shared);
        this.remote = shared
                ? new RemoteDecisions(backend, timeout, new CallTimeouts(timeout, Infrastructure.getDefaultWorkerPool()),
                        breaker, denyCache, metrics, new FailureModes(backend.name(), local, timeout), counts, tracing)
                : null;
        boolean leasing = shared && policies.all().stream().anyMatch(Policy::leases);
        if (leasing && denyCache != null) {
            // slices give units back: the denials of a leasing policy are held briefly, on every instance
            policies.all().stream().filter(Policy::leases).forEach(p -> denyCache.settles(p.name()));
        }
        this.leased = leasing ? new LeasedDecisions(remote, backend, timeout, counts, tracing, metrics,
                config.denyCache().maxEntries(), Infrastructure.getDefaultWorkerPool()) : null;
        metrics.register(policies.all(), backend.name(), breaker == null ? null : () -> breaker.state().code());
        this.overrides = new KeyOverrides(policies, backend, local, keyPrefix, timeout, metrics);
        this.waits = new Waits(metrics);
        this.limited = new LimitedKeys(backend, keyPrefix, timeout, Infrastructure.getDefaultWorkerPool());
        counts.follow(limited);
    }

    /** The policies this limiter knows. */
    public PolicyRegistry policies() {
        return policies;
    }

    /** Where the limiter reports what it does. */
    public RateLimitMetrics metrics() {
        return metrics;
    }

    /** The backend deciding while it is healthy. */
    public RateLimitBackend backend() {
        return backend;
    }

    /** The circuit breaker around the backend, or {@code null} (local backend, or disabled). */
    public CircuitBreaker circuitBreaker() {
        return breaker;
    }

    /** The prefix of every key this limiter writes ({@code key-prefix}). */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** The slices of hot keys this instance holds, or {@code null} (local backend, or no policy with a lease). */
    public QuotaLeases quotaLeases() {
        return leased == null ? null : leased.leases();
    }

    /** Gives back the slices this instance holds and adds its last denials to the shared tally (it stops). */
    public void stop() {
        if (leased != null) {
            leased.stop();
        }
        limited.stop();
        try {
            limited.flush().await().atMost(timeout.multipliedBy(2));
        } catch (RuntimeException e) {
            // the tally misses this instance's last seconds: nothing else depends on it
        }
    }

    /**
     * The {@code most} identities (as the keys store them) {@code policy} denied most over the last 5 minutes, across
     * every instance, most first: each with its denials.
     */
    public Uni<List<Map.Entry<String, Long>>> limited(String policy, int most) {
        policies.get(policy); // an unknown policy fails here, naming the configured ones
        return limited.flush().onFailure().recoverWithNull()
                .chain(() -> limited.top(policy, most))
                .map(l -> l.stream().map(x -> Map.entry(x.identity(), x.denials())).toList());
    }

    /** The cache of recent denials, or {@code null} (local backend, or disabled). */
    public DenyCache denyCache() {
        return denyCache;
    }

    /**
     * The HTTP status for a denied decision: {@code quarkus.ratelimit.fail-closed-status} when the
     * backend failed and {@code fail-closed} denied, 429 otherwise.
     */
    public int httpStatus(RateLimitDecision decision) {
        return decision.source() == Source.FAILED_CLOSED ? failClosedStatus : 429;
    }

    /** The costs of one check of cost 1, shared: nobody writes the costs of a call (see {@link #check}). */
    private static final long[] COST_ONE = { 1 };

    /**
     * One check, without the check and the list the interface's default wraps around it, nor arrays of its policy
     * and cost: the registry's of the policy alone, {@link #COST_ONE}, and the key's array {@link BuiltKeys} shares
     * among the calls of that key, all of which the limiter and the backends only read.
     */
    @Override
    public Uni<RateLimitDecision> check(String policy, String key, int cost) {
        Policy[] ps = policies.alone(policy);
        Policy p = ps[0];
        admissible(p, policy, null, cost);
        return decide(ps, keys.alone(p, key), cost == 1 ? COST_ONE : new long[] { cost });
    }

    @Override
    public Uni<RateLimitDecision> check(String policy, String key) {
        return check(policy, key, 1);
    }

    @Override
    public Uni<RateLimitDecision> check(List<RateLimitCheck> checks) {
        if (checks.size() == 1 && checks.get(0).plan() == null) {
            RateLimitCheck c = checks.get(0);
            return check(c.policy(), c.key(), c.cost()); // one check on its base plan: the shared arrays
        }
        Resolved r = resolve(checks);
        return decide(r.ps, r.keys, r.costs);
    }

    /** The policies (each on its plan), keys and costs of {@code checks}, in order. */
    private record Resolved(Policy[] ps, String[] keys, long[] costs) {
    }

    private Resolved resolve(List<RateLimitCheck> checks) {
        int n = checks.size();
        if (n == 0) {
            throw new IllegalArgumentException("at least one check is needed");
        }
        Resolved r = new Resolved(new Policy[n], new String[n], new long[n]);
        for (int i = 0; i < n; i++) {
            RateLimitCheck c = checks.get(i);
            resolve(c.policy(), c.key(), c.cost(), c.plan(), r.ps, r.keys, r.costs, i);
        }
        return r;
    }

    /**
     * Puts the policy (on {@code plan}), key and cost of one check at index {@code i}, or says why it can never be
     * decided. Every plan of a policy has the policy's name, hence its Redis key: a client moving between plans keeps
     * what it used.
     */
    private void resolve(String policy, String key, int cost, String plan, Policy[] ps, String[] keys, long[] costs,
            int i) {
        Policy p = policies.get(policy, plan);
        admissible(p, policy, plan, cost);
        ps[i] = p;
        keys[i] = this.keys.key(p, key);
        costs[i] = cost;
    }

    /** Says why a check of {@code cost} on {@code p} ({@code policy} on {@code plan}) can never be decided, if so. */
    private void admissible(Policy p, String policy, String plan, int cost) {
        // a key's override may raise the capacity: the backend replies a cost it can never admit as such
        if (cost > p.capacity() && !p.overrides()) {
            String attribute = p.algorithm().usesBurst() ? "burst" : "limit";
            boolean onPlan = p != policies.get(policy);
            throw new IllegalArgumentException("cost " + cost + " can never be admitted by policy '" + p.name()
                    + "'" + (onPlan ? " on plan '" + plan + "'" : "") + ", whose capacity is " + p.capacity()
                    + "; lower the cost or raise " + (onPlan ? PolicyValidator.planProperty(p.name(), plan, attribute)
                            : PolicyValidator.property(p.name(), attribute)));
        }
    }

    private Uni<RateLimitDecision> decide(Policy[] ps, String[] keys, long[] costs) {
        MergedChecks merged = MergedChecks.of(ps, keys, costs);
        long allowed = Waits.allowedNanos(ps);
        if (allowed == 0) {
            return decideOnce(merged, ps, keys, costs, 0);
        }
        return waits.waiting(turn -> decideOnce(merged, ps, keys, costs, turn), ps, allowed);
    }

    /** One decision of the call, its bucket policies taking turns within {@code turn} µs (0: none). */
    private Uni<RateLimitDecision> decideOnce(MergedChecks merged, Policy[] ps, String[] keys, long[] costs,
            long turn) {
        return merged != null
                ? decideDistinct(merged.policies, merged.keys, merged.costs, turn).map(merged::expand)
                : decideDistinct(ps, keys, costs, turn);
    }

    /**
     * The decision, made at each subscription. A call taking concurrency slots draws its lease then, not here: a
     * {@code Uni} subscribed twice (a retry, a reused {@code check}) is two calls, each holding and freeing its own.
     */
    private Uni<RateLimitDecision> decideDistinct(Policy[] ps, String[] keys, long[] costs, long turn) {
        Lease.Ids ids = Lease.needed(ps) ? leaseIds : null;
        if (remote == null) {
            return decidedHere(ps, keys, costs, ids, false, turn, (d, reply) -> d);
        }
        if (leased != null && ps.length == 1 && ps[0].leases()) {
            return leased.decide(ps, keys, costs);
        }
        return turn > 0 ? remote.decideInTurn(ps, keys, costs, turn) : remote.decide(ps, keys, costs, ids);
    }

    /**
     * Decided (or reserved) in process when subscribed to, on the caller's thread: asked for and made at once, its
     * bucket policies taking turns within {@code turn} µs (0: none); {@code result} makes what the caller gets of the
     * decision and the reply.
     */
    private <T> Uni<T> decidedHere(Policy[] ps, String[] keys, long[] costs, Lease.Ids ids, boolean reserve,
            long turn, BiFunction<RateLimitDecision, BackendReply, T> result) {
        return Uni.createFrom().item(() -> {
            String lease = ids == null ? null : ids.next();
            Object trace = tracing.start();
            RateLimitDecision d;
            BackendReply reply;
            try {
                reply = reserve ? local.reserveNow(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, lease)
                        : local.decideNow(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, false, lease, turn);
                d = counts.counted(ps, keys, reply.decision(ps, Source.LOCAL,
                        lease == null ? null : new Lease(local, ps, keys, costs, lease)));
            } catch (RuntimeException e) {
                if (trace != null) {
                    tracing.abandoned(trace, e);
                }
                throw e;
            }
            if (trace != null) {
                tracing.decided(trace, d, DecidedBy.LOCAL, 0);
            }
            return result.apply(d, reply);
        });
    }

    @Override
    public Uni<Reservation> reserve(List<RateLimitCheck> checks) {
        Resolved r = resolve(checks);
        Policy[] ps = r.ps;
        String[] keys = r.keys;
        long[] costs = r.costs;
        if (MergedChecks.of(ps, keys, costs) != null) {
            throw new IllegalArgumentException("a reservation names each policy and key once: " + checks);
        }
        if (denyCache != null) {
            for (Policy p : ps) {
                denyCache.settles(p.name()); // its keys may get units back: their denials are held briefly
            }
        }
        Lease.Ids ids = Lease.needed(ps) ? leaseIds : null;
        BiFunction<RateLimitDecision, BackendReply, Reservation> made = (d, reply) -> new Reservation(d, checks,
                reply == null ? null : refunds -> settle(ps, keys, refunds, reply));
        return remote == null ? decidedHere(ps, keys, costs, ids, true, 0, made)
                : remote.reserve(ps, keys, costs, ids, made);
    }

    /** Gives back {@code refunds} of what the reservation {@code reply} admitted charged, on the backend that did. */
    private Uni<Void> settle(Policy[] ps, String[] keys, long[] refunds, BackendReply reply) {
        long[] chargedAt = new long[ps.length];
        for (int i = 0; i < ps.length; i++) {
            chargedAt[i] = reply.chargedAt(i);
            if (denyCache != null && refunds[i] > 0) {
                denyCache.forget(ps[i], keys[i]); // units come back: a denial remembered here may no longer hold
            }
        }
        RateLimitBackend b = remote == null ? local : backend;
        if (tracing != RateLimitTracing.NONE) {
            // a count= policy settles on every request it does not count: no list when nothing records it
            List<String> names = new ArrayList<>(ps.length);
            for (Policy p : ps) {
                names.add(p.name());
            }
            tracing.settling(names, refunds);
        }
        return DirectCalls.within(b.settle(ps, keys, refunds, chargedAt, RateLimitBackend.BACKEND_CLOCK), timeout)
                .onItemOrFailure().invoke((done, failure) -> {
                    for (int i = 0; i < ps.length; i++) {
                        metrics.settled(ps[i].name(), refunds[i], failure != null);
                    }
                })
                .replaceWithVoid();
    }

    @Override
    public Uni<PolicyDecision> state(RateLimitCheck check) {
        Policy p = policies.get(check.policy(), check.plan());
        Policy[] ps = { p };
        Source source = remote == null ? Source.LOCAL : Source.REDIS;
        return DirectCalls.within(backend.peek(p, RedisKeys.key(keyPrefix, p, check.key())), timeout)
                .map(r -> r.decision(ps, source).binding());
    }

    @Override
    public Uni<Void> reset(String policy, String key) {
        // every plan of a policy shares its name, hence its key
        String k = RedisKeys.key(keyPrefix, policies.get(policy), key);
        if (denyCache != null) {
            denyCache.forget(k);
        }
        local.forgetNow(k); // the state the local failure mode counted, or the local backend's own
        if (leased != null) {
            leased.forget(k); // a slice of this instance: the key starts afresh
        }
        if (remote == null) {
            return Uni.createFrom().voidItem();
        }
        return DirectCalls.within(backend.forget(k), timeout);
    }

    @Override
    public Uni<Void> setOverride(String policy, String key, RateLimitOverride override) {
        return overrides.set(policy, key, override);
    }

    @Override
    public Uni<Optional<RateLimitOverride>> override(String policy, String key) {
        return overrides.get(policy, key);
    }

    @Override
    public Uni<Void> clearOverride(String policy, String key) {
        return overrides.clear(policy, key);
    }
}
