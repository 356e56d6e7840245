package dev.ratelimit.runtime.core;

import java.time.Duration;
import java.util.List;
import java.util.function.LongFunction;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.runtime.backend.RateLimitBackend;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.Policy;
import io.smallrye.mutiny.Uni;

/**
 * Waiting for admission ({@code max-wait}). A call whose bucket policies (token-bucket, leaky-bucket, gcra) all wait
 * takes its turn: the backend charges it now and says when its turn comes ({@link RateLimitBackend#decideInTurn}),
 * and the call goes on then, on a timer. The key's time moves past each turn, so the calls waiting on a key are
 * served in the order Redis charged them, none overtaken by a later one, each at an instant the policy admits it.
 * Other denials (a window algorithm, a call across cluster slots, the failure modes' local decisions) are waited out
 * by deciding again when the denial says units are back, as long as that falls within the wait allowed from the
 * first attempt. Either way the wait is a timer, never a blocked thread, and never admits what the policy would not.
 */
final class Waits {

    private final RateLimitMetrics metrics;

    Waits(RateLimitMetrics metrics) {
        this.metrics = metrics;
    }

    /**
     * How long a call of {@code ps} may wait, in nanoseconds: the shortest {@code max-wait} among them (0: it does not
     * wait).
     */
    static long allowedNanos(Policy[] ps) {
        long allowed = 0;
        for (Policy p : ps) {
            if (p.waits()) {
                long w = p.maxWait().toNanos();
                allowed = allowed == 0 ? w : Math.min(allowed, w);
            }
        }
        return allowed;
    }

    /**
     * The decision {@code decision} makes for a turn of at most the given µs (0: none), taken at a turn or decided
     * again after each denial it may wait out, within {@code allowed} nanoseconds.
     */
    Uni<RateLimitDecision> waiting(LongFunction<Uni<RateLimitDecision>> decision, Policy[] ps, long allowed) {
        boolean turns = takesTurns(ps);
        return Uni.createFrom().deferred(() -> {
            long start = System.nanoTime();
            return attempt(decision, turns, ps, start, start + allowed, false);
        });
    }

    /**
     * Whether a call of {@code ps} takes turns: it has a bucket policy, and each of its bucket policies waits (a policy
     * without {@code max-wait} must not make the call wait for its own turn). A call of window policies alone decides
     * as any call does (the deny cache, compact batch runs) and waits by deciding again.
     */
    static boolean takesTurns(Policy[] ps) {
        boolean buckets = false;
        for (Policy p : ps) {
            if (p.algorithm().usesBurst()) {
                if (!p.waits()) {
                    return false;
                }
                buckets = true;
            }
        }
        return buckets;
    }

    /** One attempt; {@code again}: not the first, the call has waited. */
    private Uni<RateLimitDecision> attempt(LongFunction<Uni<RateLimitDecision>> decision, boolean turns, Policy[] ps,
            long start, long deadline, boolean again) {
        long turn = turns ? Math.max(0, (deadline - System.nanoTime()) / 1000) : 0;
        return decision.apply(turn).onItem().transformToUni(d -> {
            long now = System.nanoTime();
            if (d.allowed()) {
                long until = untilTurn(d);
                if (until > 0) {
                    // charged at its turn: the call goes on when the turn comes (the backend's clock started before
                    // the reply reached us, so never before it)
                    waited(ps, now - start + until, true);
                    return Uni.createFrom().item(d).onItem().delayIt().by(Duration.ofNanos(until));
                }
                if (again) {
                    waited(ps, now - start, true);
                }
                return Uni.createFrom().item(d); // admitted at once is no wait
            }
            long wait = waitFor(d, ps);
            if (wait < 0 || now + wait - deadline > 0) {
                if (wait >= 0 || again) {
                    waited(ps, now - start, false);
                }
                return Uni.createFrom().item(d); // nothing to wait for, or not within the wait allowed
            }
            return Uni.createFrom().voidItem().onItem().delayIt().by(Duration.ofNanos(Math.max(wait, 1_000_000)))
                    .onItem().transformToUni(x -> attempt(decision, turns, ps, start, deadline, true));
        });
    }

    /** Nanoseconds until the turn of an admitted decision: the latest among its policies (0: admitted now). */
    private static long untilTurn(RateLimitDecision d) {
        long until = 0;
        for (PolicyDecision pd : d.policies()) {
            if (pd.allowed()) {
                until = Math.max(until, pd.retryAfter().toNanos());
            }
        }
        return until;
    }

    /**
     * How long until the denial {@code d} may end, in nanoseconds: the longest wait among the policies that denied;
     * -1 when it cannot be waited out (a policy without {@code max-wait} denied, or a failure mode answered).
     */
    private static long waitFor(RateLimitDecision d, Policy[] ps) {
        if (d.source() == Source.FAILED_CLOSED || d.source() == Source.FAILED_OPEN) {
            return -1; // Redis failed: waiting for it is the failure mode's business, not the policy's
        }
        long wait = -1;
        List<PolicyDecision> each = d.policies();
        for (PolicyDecision pd : each) {
            if (pd.allowed() || pd.shadow()) {
                continue;
            }
            Policy p = find(ps, pd.policy());
            if (p == null || !p.waits()) {
                return -1;
            }
            wait = Math.max(wait, pd.retryAfter().toNanos());
        }
        return wait;
    }

    private static Policy find(Policy[] ps, String name) {
        for (Policy p : ps) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        return null;
    }

    private void waited(Policy[] ps, long nanos, boolean admitted) {
        for (Policy p : ps) {
            if (p.waits()) {
                metrics.waited(p.name(), nanos, admitted);
            }
        }
    }
}
