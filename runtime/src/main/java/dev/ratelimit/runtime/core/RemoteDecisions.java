package dev.ratelimit.runtime.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.BiFunction;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.backend.BackendReply;
import dev.ratelimit.runtime.backend.Lease;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.resilience.BackendErrors;
import dev.ratelimit.runtime.resilience.CallTimeouts;
import dev.ratelimit.runtime.resilience.CircuitBreaker;
import dev.ratelimit.runtime.resilience.DecidedBy;
import dev.ratelimit.runtime.resilience.DenyCache;
import dev.ratelimit.runtime.resilience.FailureModes;
import dev.ratelimit.runtime.tracing.RateLimitTracing;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.operators.AbstractUni;
import io.smallrye.mutiny.subscription.UniSubscriber;
import io.smallrye.mutiny.subscription.UniSubscription;

/**
 * Decisions by the shared backend, guarded: the {@link DenyCache} answers a key Redis just denied without a call,
 * the {@link CircuitBreaker} makes no call while Redis is down, every call has its timeout ({@link CallTimeouts}),
 * and when a call fails, times out or is not made the {@link FailureModes} decide. Each decision is counted and traced
 * where it is made; what it is traced on is captured when it is asked for ({@link RateLimitTracing#start()}), since
 * it may be made on another thread (the event loop reading Redis's reply, the timeout's).
 */
final class RemoteDecisions {

    private final RateLimitBackend backend;
    private final Duration timeout;
    private final CallTimeouts timeouts;
    /** Null when disabled. */
    private final CircuitBreaker breaker;
    /** Null when disabled. */
    private final DenyCache denyCache;
    private final RateLimitMetrics metrics;
    private final BackendErrors errors;
    private final FailureModes failureModes;
    private final DecisionCounts counts;
    private final RateLimitTracing tracing;

    RemoteDecisions(RateLimitBackend backend, Duration timeout, CallTimeouts timeouts, CircuitBreaker breaker,
            DenyCache denyCache, RateLimitMetrics metrics, FailureModes failureModes, DecisionCounts counts,
            RateLimitTracing tracing) {
        this.backend = backend;
        this.timeout = timeout;
        this.timeouts = timeouts;
        this.breaker = breaker;
        this.denyCache = denyCache;
        this.metrics = metrics;
        this.errors = new BackendErrors(backend.name(), metrics, System::nanoTime);
        this.failureModes = failureModes;
        this.counts = counts;
        this.tracing = tracing;
    }

    /**
     * The decision, made when the caller subscribes (the cache, the breaker and the clock are consulted then); a call
     * taking concurrency slots draws its lease from {@code leases} at each subscription (null: it takes none).
     */
    Uni<RateLimitDecision> decide(Policy[] ps, String[] keys, long[] costs, Lease.Ids leases) {
        return new RemoteDecision<>(ps, keys, costs, costs, leases, false, 0, (d, reply) -> d);
    }

    /**
     * The decision of a call that may wait up to {@code turnMicros} ({@code max-wait}, see
     * {@link RateLimitBackend#decideInTurn}): its bucket policies take the next turn within that time. The deny cache
     * is not consulted: a denial it remembers says when the key admits again, not whether a turn comes in time.
     */
    Uni<RateLimitDecision> decideInTurn(Policy[] ps, String[] keys, long[] costs, long turnMicros) {
        return new RemoteDecision<>(ps, keys, costs, costs, null, false, turnMicros, (d, reply) -> d);
    }

    /**
     * A reservation's charge, guarded as a decision is; {@code result} makes what the caller gets of the decision and,
     * when the backend made it, its reply (null when the deny cache or a failure mode answered).
     */
    <T> Uni<T> reserve(Policy[] ps, String[] keys, long[] costs, Lease.Ids leases,
            BiFunction<RateLimitDecision, BackendReply, T> result) {
        return new RemoteDecision<>(ps, keys, costs, costs, leases, true, 0, result);
    }

    /**
     * A slice's charge ({@code lease}): a reservation of {@code slice} units for a call of {@code costs}. The deny
     * cache and the failure modes answer for the call (its own costs); a slice Redis refuses is not a decision (the
     * call is then decided alone, and counted then): {@code result} is given the reply with it.
     */
    <T> Uni<T> slice(Policy[] ps, String[] keys, long[] costs, long[] slice,
            BiFunction<RateLimitDecision, BackendReply, T> result) {
        return new RemoteDecision<>(ps, keys, costs, slice, null, true, 0, result);
    }

    /**
     * A decision by the backend, as one object per call rather than a chain of Mutiny operators (each of which Quarkus
     * decorates): on subscription it consults the deny cache and the breaker, then calls the backend under the shared
     * {@link CallTimeouts}. The first subscription's call is this object itself (the caller's {@code Uni}, its
     * subscription, the backend's subscriber and the call watched for its timeout); a later one (a retry, a reused
     * {@code Uni}) is another call, made by a copy of its own.
     */
    private final class RemoteDecision<T> extends AbstractUni<T>
            implements CallTimeouts.Watched, UniSubscriber<BackendReply>, UniSubscription {
        @SuppressWarnings("rawtypes")
        private static final AtomicIntegerFieldUpdater<RemoteDecision> STATE = AtomicIntegerFieldUpdater
                .newUpdater(RemoteDecision.class, "state");
        @SuppressWarnings("rawtypes")
        private static final AtomicReferenceFieldUpdater<RemoteDecision, UniSubscription> UPSTREAM =
                AtomicReferenceFieldUpdater.newUpdater(RemoteDecision.class, UniSubscription.class, "upstream");
        /** {@link #state}: not subscribed yet; the call of the first subscription, running; that call ended. */
        private static final int FRESH = 0, RUNNING = 1, DONE = 2;

        // what is asked, the same at every subscription
        private final Policy[] ps;
        private final String[] keys;
        private final long[] costs;
        /** The units charged in Redis: the call's {@link #costs}, or a slice's for a slice. */
        private final long[] charged;
        /** Where each subscription draws the name of the slots its concurrency policies take; null without any. */
        private final Lease.Ids leases;
        /** A reservation's charge ({@link RateLimitBackend#reserve}) rather than a decision's. */
        private final boolean reserve;
        /** How far ahead the call may take its turn, in µs ({@link RateLimitBackend#decideInTurn}); 0: none. */
        private final long turn;
        private final BiFunction<RateLimitDecision, BackendReply, T> result;

        // the call of the first subscription, set on the subscribing thread before the call is handed to anyone
        private volatile int state;
        /** The name of the slots this call's concurrency policies take; null when it has none. */
        private String lease;
        /** The caller; dropped once answered (the timeouts' queue may hold this call a little longer). */
        private UniSubscriber<? super T> downstream;
        /** What the decision is traced on ({@link RateLimitTracing#start()}), or null. */
        private Object trace;
        /** The reply the decision was made of; null when the deny cache or a failure mode answered. */
        private BackendReply decidedBy;
        private volatile UniSubscription upstream;
        private int permit;
        /** When the call was sent (0: not sent); it expires one timeout later. */
        private long sentAt;

        RemoteDecision(Policy[] ps, String[] keys, long[] costs, long[] charged, Lease.Ids leases, boolean reserve,
                long turn, BiFunction<RateLimitDecision, BackendReply, T> result) {
            this.ps = ps;
            this.keys = keys;
            this.costs = costs;
            this.charged = charged;
            this.leases = leases;
            this.reserve = reserve;
            this.turn = turn;
            this.result = result;
        }

        @Override
        public void subscribe(UniSubscriber<? super T> downstream) {
            if (state != FRESH || !STATE.compareAndSet(this, FRESH, RUNNING)) {
                // subscribed again: another call, with a state of its own
                new RemoteDecision<>(ps, keys, costs, charged, leases, reserve, turn, result).subscribe(downstream);
                return;
            }
            // here, on the caller's thread, where the caller's span is current; before the caller can cancel
            this.lease = leases == null ? null : leases.next();
            this.downstream = downstream;
            this.trace = tracing.start();
            downstream.onSubscribe(this);
            if (state == DONE) {
                return; // cancelled at once: no permit, no call
            }
            RateLimitDecision immediate;
            try {
                immediate = start();
            } catch (RuntimeException e) {
                if (claim()) {
                    abandoned(e);
                    this.downstream = null;
                    downstream.onFailure(e);
                }
                return;
            }
            if (immediate != null && claim()) {
                this.downstream = null;
                downstream.onItem(result.apply(immediate, null));
            }
        }

        /** Answers at once (deny cache, open breaker) or calls the backend and returns null. */
        private RateLimitDecision start() {
            if (denyCache != null && turn == 0) {
                List<PolicyDecision> cached = denyCache.lookup(ps, keys, costs);
                if (cached != null) {
                    // all-or-nothing: one policy known to deny is enough, and Redis is not asked
                    return recorded(new RateLimitDecision(false, cached, Source.DENY_CACHE), 0);
                }
            }
            permit = breaker == null ? CircuitBreaker.PERMITTED : breaker.acquire();
            if (permit == CircuitBreaker.REJECTED) {
                return failureDecision(null);
            }
            sentAt = System.nanoTime();
            timeouts.watch(this, sentAt); // one clock read for the latency, the deny cache and the deadline
            AbstractUni.subscribe(reserve
                    ? backend.reserve(ps, keys, charged, RateLimitBackend.BACKEND_CLOCK, lease)
                    : turn > 0
                            ? backend.decideInTurn(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, turn)
                            : backend.decide(ps, keys, costs, RateLimitBackend.BACKEND_CLOCK, false, lease),
                    this);
            return null;
        }

        private boolean claim() {
            return STATE.compareAndSet(this, RUNNING, DONE);
        }

        @Override
        public void onSubscribe(UniSubscription subscription) {
            upstream = subscription;
            if (state == DONE) {
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
        public boolean finished() {
            return state == DONE;
        }

        @Override
        public long startedAt() {
            return sentAt;
        }

        @Override
        public void expire() {
            if (claim()) {
                cancelUpstream();
                // the failure's answer frees the slots the call may still take (see decide)
                answer(null, new TimeoutException("no reply from the rate-limit backend within " + timeout));
            }
        }

        @Override
        public void cancel() {
            if (claim()) {
                cancelUpstream();
                freeUnanswered();
                abandoned(null);
                downstream = null;
            }
        }

        /** What frees the slots the backend's charge took, or null. */
        private Lease lease() {
            return lease == null ? null : new Lease(backend, ps, keys, costs, lease);
        }

        /**
         * Frees the slots a call given up on, or whose reply was lost, may have taken: nobody will release them. Should
         * the release reach Redis before the charge (a charge still queued, or resent), the charge takes nothing (see
         * {@link RateLimitBackend#release(Policy[], String[], long[], String, long)}).
         */
        private void freeUnanswered() {
            if (lease != null && sentAt != 0) {
                lease().run();
            }
        }

        private void cancelUpstream() {
            UniSubscription u = upstream;
            if (u != null) {
                upstream = null;
                u.cancel();
            }
        }

        void finish(BackendReply reply, Throwable error) {
            if (!claim()) {
                return; // timed out or cancelled: freeUnanswered() saw to any slots
            }
            // answered: nothing left to cancel, and the backend's call need not outlive it in the timeouts' queue
            // (an ordered store, no fence: only a cancellation, which now finds the call claimed, would read it)
            UPSTREAM.lazySet(this, null);
            answer(reply, error);
        }

        /** Answers the caller, once the call is claimed: the decision, or the failure to make one. */
        private void answer(BackendReply reply, Throwable error) {
            UniSubscriber<? super T> d = downstream;
            downstream = null; // the timeouts' queue may hold this call for a tick more: not the caller with it
            T t;
            try {
                t = result.apply(decide(reply, error), decidedBy);
            } catch (RuntimeException e) {
                abandoned(e);
                d.onFailure(e);
                return;
            } finally {
                decidedBy = null;
            }
            d.onItem(t);
        }

        /** The decision for a reply, or for a failure (the failure mode's). */
        private RateLimitDecision decide(BackendReply reply, Throwable error) {
            // one clock read for the latency and the breaker (none when neither wants it)
            long now = metrics != RateLimitMetrics.NONE || breaker != null ? System.nanoTime() : 0;
            if (metrics != RateLimitMetrics.NONE) {
                metrics.backendLatency(now - sentAt);
            }
            Throwable failure = error;
            RateLimitDecision d = null;
            if (failure == null) {
                try {
                    d = reply.decision(ps, Source.REDIS, lease());
                } catch (RuntimeException e) {
                    failure = e; // a reply we cannot read: a broken backend, not the caller's problem
                }
            }
            if (failure != null) {
                // the script may have run and charged before the failure (a reset connection, a reply we cannot
                // read, a failed cluster pass): the caller is not told of any slots, so nobody else frees them
                freeUnanswered();
                if (breaker != null) {
                    breaker.onFailure(permit, failure);
                }
                if (BackendErrors.isErrorReply(failure)) {
                    errors.report(failure, ps);
                }
                return failureDecision(failure);
            }
            if (breaker != null) {
                breaker.onSuccess(permit, now);
            }
            if (denyCache != null && !d.allowed()) {
                denyCache.remember(ps, keys, charged, reply, sentAt);
            }
            decidedBy = reply;
            if (charged != costs && !d.allowed()) {
                return d; // a slice refused: no decision of the call, which is decided alone next
            }
            return recorded(d, reply.runSize());
        }

        /** The failure mode's decision, recorded; {@code failure} is null when the breaker refused the call. */
        private RateLimitDecision failureDecision(Throwable failure) {
            return recorded(failureModes.decide(ps, keys, costs, lease, failure), 0);
        }

        /** Counts and traces the decision; {@code runSize}: see {@link RateLimitTracing#decided}. */
        private RateLimitDecision recorded(RateLimitDecision d, int runSize) {
            counts.counted(ps, keys, d);
            if (trace != null) {
                tracing.decided(trace, d, DecidedBy.of(d.source(), false), runSize);
            }
            return d;
        }

        private void abandoned(Throwable failure) {
            if (trace != null) {
                tracing.abandoned(trace, failure);
            }
        }
    }

}
