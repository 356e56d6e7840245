package dev.ratelimit.runtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.local.LocalBackend;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.metrics.RateLimitMetrics.Outcome;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.policy.PolicyRegistry;
import dev.ratelimit.runtime.policy.PolicyValidator;
import dev.ratelimit.runtime.redis.RedisKeys;
import dev.ratelimit.runtime.resilience.BackendErrors;
import dev.ratelimit.runtime.resilience.CallTimeouts;
import dev.ratelimit.runtime.resilience.CircuitBreaker;
import dev.ratelimit.runtime.resilience.DenyCache;
import dev.ratelimit.runtime.resilience.FailureModes;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.smallrye.mutiny.operators.AbstractUni;
import io.smallrye.mutiny.subscription.UniSubscriber;
import io.smallrye.mutiny.subscription.UniSubscription;

/**
 * Turns checks into backend calls and backend replies into decisions.
 * <p>
 * In front of the backend: the {@link DenyCache} (a key Redis just denied is denied again without
 * a call) and the {@link CircuitBreaker} (no call while Redis is down). Around it: the per-call
 * timeout. When the call fails, times out or is not made, the {@link FailureModes} decide. The
 * same (policy, key) twice in one call is one charge ({@link MergedChecks}). Every decision is
 * counted in the {@link RateLimitMetrics}.
 */
public class DefaultRateLimiter implements RateLimiter {

    private final PolicyRegistry policies;
    private final RateLimitBackend backend;
    private final LocalBackend local;
    private final String keyPrefix;
    private final Duration timeout;
    private final CallTimeouts timeouts;
    private final int failClosedStatus;
    /** Null with the local backend or when disabled. */
    private final CircuitBreaker breaker;
    /** Null with the local backend or when disabled. */
    private final DenyCache denyCache;
    private final RateLimitMetrics metrics;
    private final BackendErrors errors;
    private final FailureModes failureModes;

    /** A limiter with the resilience settings of {@code config}. */
    public DefaultRateLimiter(PolicyRegistry policies, RateLimitBackend backend, LocalBackend local,
            RateLimitRuntimeConfig config, RateLimitMetrics metrics) {
        this.policies = policies;
        this.backend = backend;
        this.local = local;
        this.keyPrefix = config.keyPrefix();
        this.timeout = config.redis().timeout();
        this.timeouts = new CallTimeouts(timeout, Infrastructure.getDefaultWorkerPool());
        this.failClosedStatus = config.failClosedStatus();
        if (failClosedStatus != 429 && failClosedStatus != 503) {
            throw new ConfigurationException("quarkus.ratelimit.fail-closed-status is " + failClosedStatus
                    + ": use 429 (Too Many Requests) or 503 (Service Unavailable)");
        }
        boolean remote = backend != local;
        if (remote && config.circuitBreaker().enabled()) {
            int threshold = config.circuitBreaker().failureThreshold();
            if (threshold < 1) {
                throw new ConfigurationException("quarkus.ratelimit.circuit-breaker.failure-threshold is " + threshold
                        + ": it must be positive");
            }
            this.breaker = new CircuitBreaker(backend.name(), threshold, config.circuitBreaker().openDuration(), timeout,
                    System::nanoTime);
        } else {
            this.breaker = null;
        }
        if (remote && config.denyCache().enabled()) {
            int max = config.denyCache().maxEntries();
            if (max < 1) {
                throw new ConfigurationException("quarkus.ratelimit.deny-cache.max-entries is " + max
                        + ": it must be positive (or disable the cache with quarkus.ratelimit.deny-cache.enabled=false)");
            }
            this.denyCache = new DenyCache(max, config.denyCache().safetyMargin(), System::nanoTime);
        } else {
            this.denyCache = null;
        }
        this.metrics = metrics;
        this.errors = new BackendErrors(backend.name(), metrics, System::nanoTime);
        this.failureModes = new FailureModes(backend.name(), local, timeout);
        metrics.register(policies.all(), backend.name(), breaker == null ? null : () -> breaker.state().code());
    }

    /** The policies this limiter knows. */
    public PolicyRegistry policies() {
        return policies;
    }

    /** The backend deciding while it is healthy. */
    public RateLimitBackend backend() {
        return backend;
    }

    /** The circuit breaker around the backend, or {@code null} (local backend, or disabled). */
    public CircuitBreaker circuitBreaker() {
        return breaker;
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

    /** One check, without the list the interface's default wraps around it. */
    @Override
    public Uni<RateLimitDecision> check(String policy, String key, int cost) {
        Policy[] ps = new Policy[1];
        String[] keys = new String[1];
        long[] costs = new long[1];
        resolve(new RateLimitCheck(policy, key, cost), ps, keys, costs, 0);
        return decide(ps, keys, costs);
    }

    @Override
    public Uni<RateLimitDecision> check(List<RateLimitCheck> checks) {
        int n = checks.size();
        if (n == 0) {
            throw new IllegalArgumentException("at least one check is needed");
        }
        Policy[] ps = new Policy[n];
        String[] keys = new String[n];
        long[] costs = new long[n];
        for (int i = 0; i < n; i++) {
            resolve(checks.get(i), ps, keys, costs, i);
        }
        return decide(ps, keys, costs);
    }

    /** Puts the policy, key and cost of check {@code c} at index {@code i}, or says why it can never be decided. */
    private void resolve(RateLimitCheck c, Policy[] ps, String[] keys, long[] costs, int i) {
        Policy p = policies.get(c.policy());
        if (c.cost() > p.capacity()) {
            throw new IllegalArgumentException("cost " + c.cost() + " can never be admitted by policy '" + p.name()
                    + "', whose capacity is " + p.capacity() + "; lower the cost or raise "
                    + PolicyValidator.property(p.name(), p.algorithm().usesBurst() ? "burst" : "limit"));
        }
        ps[i] = p;
        keys[i] = RedisKeys.key(keyPrefix, p.name(), c.key());
        costs[i] = c.cost();
    }

    private Uni<RateLimitDecision> decide(Policy[] ps, String[] keys, long[] costs) {
        MergedChecks merged = MergedChecks.of(ps, keys, costs);
        if (merged != null) {
            return decideDistinct(merged.policies, merged.keys, merged.costs).map(merged::expand);
        }
        return decideDistinct(ps, keys, costs);
    }

    private Uni<RateLimitDecision> decideDistinct(Policy[] ps, String[] keys, long[] costs) {
        if (backend == local) {
            return local.decide(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, false)
                    .map(r -> counted(ps, r.decision(ps, Source.LOCAL)));
        }
        // the cache, the breaker and the clock are consulted when the caller subscribes
        return new RemoteDecision(ps, keys, costs);
    }

    @Override
    public RateLimitDecision checkBlocking(List<RateLimitCheck> checks) {
        // bounded: the backend call carries the timeout, the cache and the failure modes answer at once
        return check(checks).await().indefinitely();
    }

    /**
     * A decision by the backend, as one object per call rather than a chain of Mutiny operators
     * (each of which Quarkus decorates): on subscription it consults the deny cache and the breaker,
     * then calls the backend under the shared {@link CallTimeouts}.
     */
    private final class RemoteDecision extends AbstractUni<RateLimitDecision> {
        private final Policy[] ps;
        private final String[] keys;
        private final long[] costs;

        RemoteDecision(Policy[] ps, String[] keys, long[] costs) {
            this.ps = ps;
            this.keys = keys;
            this.costs = costs;
        }

        @Override
        public void subscribe(UniSubscriber<? super RateLimitDecision> downstream) {
            RemoteCall call = new RemoteCall(this, downstream);
            downstream.onSubscribe(call);
            if (call.finished()) {
                return; // cancelled at once: no permit, no call
            }
            RateLimitDecision immediate;
            try {
                immediate = call.start();
            } catch (RuntimeException e) {
                if (call.claim()) {
                    downstream.onFailure(e);
                }
                return;
            }
            if (immediate != null && call.claim()) {
                downstream.onItem(immediate);
            }
        }
    }

    /** One backend call in flight: the backend's subscriber, the caller's subscription, and watched for its timeout. */
    private final class RemoteCall extends CallTimeouts.Watched implements UniSubscriber<BackendReply>, UniSubscription {
        private static final AtomicIntegerFieldUpdater<RemoteCall> DONE = AtomicIntegerFieldUpdater
                .newUpdater(RemoteCall.class, "done");

        private final RemoteDecision request;
        private final UniSubscriber<? super RateLimitDecision> downstream;
        private volatile int done;
        private volatile UniSubscription upstream;
        private int permit;
        private long sentAt;

        RemoteCall(RemoteDecision request, UniSubscriber<? super RateLimitDecision> downstream) {
            this.request = request;
            this.downstream = downstream;
        }

        /** Answers at once (deny cache, open breaker) or calls the backend and returns null. */
        RateLimitDecision start() {
            Policy[] ps = request.ps;
            if (denyCache != null) {
                List<PolicyDecision> cached = denyCache.lookup(ps, request.keys, request.costs);
                if (cached != null) {
                    // all-or-nothing: one policy known to deny is enough, and Redis is not asked
                    return counted(ps, new RateLimitDecision(false, cached, Source.DENY_CACHE));
                }
            }
            permit = breaker == null ? CircuitBreaker.PERMITTED : breaker.acquire();
            if (permit == CircuitBreaker.REJECTED) {
                return failureDecision(ps, request.keys, request.costs, null);
            }
            sentAt = System.nanoTime();
            timeouts.watch(this, sentAt); // one clock read for the latency, the deny cache and the deadline
            AbstractUni.subscribe(backend.decide(ps, request.keys, request.costs, RateLimitBackend.BACKEND_CLOCK, false),
                    this);
            return null;
        }

        boolean claim() {
            return DONE.compareAndSet(this, 0, 1);
        }

        @Override
        public void onSubscribe(UniSubscription subscription) {
            upstream = subscription;
            if (done != 0) {
                subscription.cancel(); // already timed out or cancelled
            }
        }

        @Override
        public void onItem(BackendReply reply) {
            finish(reply, null);
        }

        @Override
        public void onFailure(Throwable failure) {
            finish(null, failure);
        }

        @Override
        protected boolean finished() {
            return done != 0;
        }

        @Override
        protected void expire() {
            if (claim()) {
                cancelUpstream();
                downstream.onItem(decide(null, new TimeoutException("no reply from the rate-limit backend within " + timeout)));
            }
        }

        @Override
        public void cancel() {
            if (claim()) {
                cancelUpstream();
            }
        }

        private void cancelUpstream() {
            UniSubscription u = upstream;
            if (u != null) {
                u.cancel();
            }
        }

        void finish(BackendReply reply, Throwable error) {
            if (!claim()) {
                return;
            }
            RateLimitDecision d;
            try {
                d = decide(reply, error);
            } catch (RuntimeException e) {
                downstream.onFailure(e);
                return;
            }
            downstream.onItem(d);
        }

        /** The decision for a reply, or for a failure (the failure mode's). */
        private RateLimitDecision decide(BackendReply reply, Throwable error) {
            Policy[] ps = request.ps;
            // one clock read for the latency and the breaker (none when neither wants it)
            long now = metrics != RateLimitMetrics.NONE || breaker != null ? System.nanoTime() : 0;
            if (metrics != RateLimitMetrics.NONE) {
                metrics.backendLatency(now - sentAt);
            }
            Throwable failure = error;
            RateLimitDecision d = null;
            if (failure == null) {
                try {
                    d = reply.decision(ps, Source.REDIS);
                } catch (RuntimeException e) {
                    failure = e; // a reply we cannot read: a broken backend, not the caller's problem
                }
            }
            if (failure != null) {
                if (breaker != null) {
                    breaker.onFailure(permit, failure);
                }
                if (BackendErrors.isErrorReply(failure)) {
                    errors.report(failure, ps);
                }
                return failureDecision(ps, request.keys, request.costs, failure);
            }
            if (breaker != null) {
                breaker.onSuccess(permit, now);
            }
            if (denyCache != null && !d.allowed()) {
                denyCache.remember(ps, request.keys, request.costs, reply, sentAt);
            }
            return counted(ps, d);
        }
    }

    /** The failure mode's decision, counted; {@code failure} is null when the breaker refused the call. */
    private RateLimitDecision failureDecision(Policy[] ps, String[] keys, long[] costs, Throwable failure) {
        return counted(ps, failureModes.decide(ps, keys, costs, failure));
    }

    /**
     * Counts the decision once for every policy of the request. The outcome is the request's
     * ({@code allowed}, {@code denied}) when the primary backend decided, except that a shadow policy
     * that would have denied counts as {@code shadow-denied}; otherwise it is where the decision came
     * from ({@code deny-cache}, {@code failed-open}, {@code failed-closed}, {@code local-fallback}).
     */
    private RateLimitDecision counted(Policy[] ps, RateLimitDecision d) {
        if (metrics == RateLimitMetrics.NONE) {
            return d;
        }
        Outcome fixed;
        switch (d.source()) {
            case DENY_CACHE:
                fixed = Outcome.DENY_CACHE;
                break;
            case FAILED_OPEN:
                fixed = Outcome.FAILED_OPEN;
                break;
            case FAILED_CLOSED:
                fixed = Outcome.FAILED_CLOSED;
                break;
            case LOCAL:
                fixed = backend == local ? null : Outcome.LOCAL_FALLBACK;
                break;
            default:
                fixed = null;
        }
        Outcome request = d.allowed() ? Outcome.ALLOWED : Outcome.DENIED;
        for (int i = 0; i < ps.length; i++) {
            Outcome o = fixed;
            if (o == null) {
                // the decision lists the request's policies in order when the backend decided
                PolicyDecision pd = d.policies().get(i);
                o = pd.shadow() && !pd.allowed() ? Outcome.SHADOW_DENIED : request;
            }
            metrics.decided(ps[i].name(), o);
        }
        return d;
    }
}
