package dev.ratelimit.runtime.core;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.Policy;
import io.smallrye.mutiny.Uni;

/**
 * Waiting for admission ({@code max-wait}): a call that is denied is decided again when the denial says units are
 * back, as long as that falls within the wait allowed from its first attempt; otherwise the denial is its answer. The
 * wait is a timer, never a blocked thread: the next attempt is a new subscription to the same decision, made when the
 * timer fires. Each attempt is an ordinary decision, so waiting never admits what the policy would not.
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

    /** {@code decision}, decided again after each denial it may wait out, within {@code allowed} nanoseconds. */
    Uni<RateLimitDecision> waiting(Uni<RateLimitDecision> decision, Policy[] ps, long allowed) {
        return Uni.createFrom().deferred(() -> {
            long start = System.nanoTime();
            return attempt(decision, ps, start, start + allowed);
        });
    }

    private Uni<RateLimitDecision> attempt(Uni<RateLimitDecision> decision, Policy[] ps, long start, long deadline) {
        return decision.onItem().transformToUni(d -> {
            long now = System.nanoTime();
            if (d.allowed()) {
                if (now != start) {
                    waited(ps, now - start, true);
                }
                return Uni.createFrom().item(d);
            }
            long wait = waitFor(d, ps);
            if (wait < 0 || now + wait - deadline > 0) {
                if (wait >= 0 || now - start > 0) {
                    waited(ps, now - start, false);
                }
                return Uni.createFrom().item(d); // nothing to wait for, or not within the wait allowed
            }
            return Uni.createFrom().voidItem().onItem().delayIt().by(Duration.ofNanos(Math.max(wait, 1_000_000)))
                    .onItem().transformToUni(x -> attempt(decision, ps, start, deadline));
        });
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
