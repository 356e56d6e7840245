package dev.ratelimit.runtime.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.leasing.QuotaLeases;
import dev.ratelimit.runtime.leasing.QuotaLeases.Ask;
import dev.ratelimit.runtime.leasing.QuotaLeases.Ending;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.resilience.DecidedBy;
import dev.ratelimit.runtime.tracing.RateLimitTracing;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.operators.AbstractUni;
import io.smallrye.mutiny.subscription.UniSubscriber;
import io.smallrye.mutiny.subscription.UniSubscription;

/**
 * The decisions of policies with quota leasing ({@code lease}), in front of {@link RemoteDecisions}: a call is
 * admitted from the key's slice when this instance holds one ({@link QuotaLeases}), takes a new slice in the call
 * Redis decides it with when the key is hot, and is decided alone otherwise (or when Redis refuses the slice). Slices
 * that end give back what they did not use (a settlement); a sweep every {@link QuotaLeases#LIFETIME_NANOS} ends those
 * whose life is over, so that a key that cools down gives its units back, and {@link #stop} gives back every slice
 * when the application stops.
 */
final class LeasedDecisions {

    private static final Logger LOG = Logger.getLogger(LeasedDecisions.class);

    private final QuotaLeases leases;
    private final RemoteDecisions remote;
    private final RateLimitBackend backend;
    private final Duration timeout;
    private final DecisionCounts counts;
    private final RateLimitTracing tracing;
    private final RateLimitMetrics metrics;
    private final ScheduledFuture<?> sweep;

    LeasedDecisions(RemoteDecisions remote, RateLimitBackend backend, Duration timeout, DecisionCounts counts,
            RateLimitTracing tracing, RateLimitMetrics metrics, int maxKeys, ScheduledExecutorService scheduler) {
        this.leases = new QuotaLeases(maxKeys, System::nanoTime);
        this.remote = remote;
        this.backend = backend;
        this.timeout = timeout;
        this.counts = counts;
        this.tracing = tracing;
        this.metrics = metrics;
        this.sweep = scheduler.scheduleAtFixedRate(this::sweep, QuotaLeases.LIFETIME_NANOS,
                QuotaLeases.LIFETIME_NANOS, TimeUnit.NANOSECONDS);
    }

    /** The slices and the rates this instance follows. */
    QuotaLeases leases() {
        return leases;
    }

    /**
     * The decision of one policy with leasing on one key, made at each subscription: one object, no operator, on the
     * path a slice serves (where the Redis call it saves would otherwise be most of the cost).
     */
    Uni<RateLimitDecision> decide(Policy[] ps, String[] keys, long[] costs) {
        return new LeasedDecision(ps, keys, costs);
    }

    private final class LeasedDecision extends AbstractUni<RateLimitDecision> {
        private final Policy[] ps;
        private final String[] keys;
        private final long[] costs;

        LeasedDecision(Policy[] ps, String[] keys, long[] costs) {
            this.ps = ps;
            this.keys = keys;
            this.costs = costs;
        }

        @Override
        public void subscribe(UniSubscriber<? super RateLimitDecision> downstream) {
            Ask ask;
            try {
                ask = leases.ask(ps[0], keys[0], costs[0]);
            } catch (RuntimeException e) {
                downstream.onSubscribe(CANCELLED);
                downstream.onFailure(e);
                return;
            }
            if (ask.ending() != null) {
                giveBack(ask.ending());
            }
            if (ask.decided() != null) {
                downstream.onSubscribe(CANCELLED);
                downstream.onItem(fromSlice(ps, ask.decided()));
                return;
            }
            AbstractUni.subscribe(ask.slice() == 0 ? alone(ps, keys, costs, ask) : slice(ask.slice()), downstream);
        }

        /** The call decided in Redis with a new slice of {@code units}; alone when Redis refuses the slice. */
        private Uni<RateLimitDecision> slice(long units) {
            Policy p = ps[0];
            String key = keys[0];
            long cost = costs[0];
            long sentAt = System.nanoTime();
            return remote.slice(ps, keys, costs, new long[] { units }, (d, reply) -> {
                PolicyDecision granted = leases.granted(p, key, units, cost, reply, sentAt);
                if (reply == null) {
                    return d; // the deny cache or the failure mode decided the call
                }
                if (granted == null) {
                    return null; // Redis refused the slice: the call is decided alone
                }
                metrics.leased(p.name(), units);
                return new RateLimitDecision(true, List.of(granted), Source.REDIS);
            }).onCancellation().invoke(() -> leases.granted(p, key, units, cost, null, sentAt)) // given up: not asking
                    .onItem().transformToUni(d -> d != null ? Uni.createFrom().item(d) : alone(ps, keys, costs, null));
        }
    }

    /** What a decision answered at once gives its caller to cancel: nothing left to cancel. */
    private static final UniSubscription CANCELLED = () -> {
    };

    /** A call admitted from a slice, counted and traced as decided by the lease. */
    private RateLimitDecision fromSlice(Policy[] ps, PolicyDecision decided) {
        Object trace = tracing.start();
        RateLimitDecision d = counts.counted(ps, new RateLimitDecision(true, List.of(decided), Source.LEASE));
        if (trace != null) {
            tracing.decided(trace, d, DecidedBy.LEASE, 0);
        }
        return d;
    }

    /**
     * The call decided in Redis by itself; on a key warm enough to lease soon ({@code ask}; null: none), what Redis
     * says is left sizes its next slice.
     */
    private Uni<RateLimitDecision> alone(Policy[] ps, String[] keys, long[] costs, Ask ask) {
        Uni<RateLimitDecision> decided = remote.decide(ps, keys, costs, null);
        if (ask == null || ask.warm() == null) {
            return decided;
        }
        return decided.invoke(d -> {
            if (d.source() == Source.REDIS) {
                leases.observed(ask, d.policies().get(0).remaining());
            }
        });
    }

    /** Ends the slice of {@code key} without giving anything back (a reset: the key starts afresh). */
    void forget(String key) {
        leases.end(key);
    }

    private void sweep() {
        try {
            for (Ending e : leases.sweep()) {
                giveBack(e);
            }
        } catch (RuntimeException e) {
            LOG.debugf(e, "Sweeping the leased slices failed; the next sweep tries again");
        }
    }

    /** Gives back what a slice did not use; should it fail, the units stay charged (the policy admits less, never more). */
    private Uni<Void> settle(Ending e) {
        metrics.leaseReturned(e.policy().name(), e.unused());
        return DirectCalls.within(backend.giveBack(new Policy[] { e.policy() }, new String[] { e.key() },
                new long[] { e.unused() }, new long[] { e.chargedAtMicros() }, RateLimitBackend.BACKEND_CLOCK), timeout)
                .replaceWithVoid();
    }

    private void giveBack(Ending e) {
        settle(e).subscribe().with(done -> {
        }, failure -> LOG.debugf(failure, "Giving back %d units of a slice of policy '%s' failed; they stay charged",
                e.unused(), e.policy().name()));
    }

    /** Stops the sweep and gives back every slice, waiting for Redis at most the timeout. */
    void stop() {
        sweep.cancel(false);
        List<Ending> ended = leases.endAll();
        if (ended.isEmpty()) {
            return;
        }
        try {
            Uni.join().all(ended.stream().map(this::settle).toList()).andCollectFailures()
                    .await().atMost(timeout.plus(timeout));
        } catch (RuntimeException e) {
            LOG.debugf(e, "Giving back the leased slices at stop failed; their units stay charged until they refill");
        }
    }
}
