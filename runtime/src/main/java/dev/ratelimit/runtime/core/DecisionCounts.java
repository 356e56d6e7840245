package dev.ratelimit.runtime.core;

import dev.ratelimit.PolicyDecision;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.runtime.metrics.RateLimitMetrics.Outcome;
import dev.ratelimit.runtime.metrics.RateLimitMetrics;
import dev.ratelimit.runtime.policy.Policy;
import dev.ratelimit.runtime.resilience.DecidedBy;

/** Counts every decision in the metrics, once per policy of the request, under the outcome it had. */
final class DecisionCounts {

    private final RateLimitMetrics metrics;
    /** Whether the in-process backend decides while healthy (then its decisions are no fallback). */
    private final boolean localIsPrimary;

    /** Who is limited now; null: not followed. */
    private volatile LimitedKeys limited;

    DecisionCounts(RateLimitMetrics metrics, boolean localIsPrimary) {
        this.metrics = metrics;
        this.localIsPrimary = localIsPrimary;
    }

    /** Follows who is denied from now on ({@link LimitedKeys}). */
    void follow(LimitedKeys limited) {
        this.limited = limited;
    }

    /** {@link #counted(Policy[], RateLimitDecision)}, and a denial counted against the identities of {@code keys}. */
    RateLimitDecision counted(Policy[] ps, String[] keys, RateLimitDecision d) {
        LimitedKeys l = limited;
        if (l != null && !d.allowed()) {
            l.denied(ps, keys, d);
        }
        return counted(ps, d);
    }

    /**
     * Counts the decision once for every policy of the request. The outcome is the request's
     * ({@code allowed}, {@code denied}) when the primary backend decided, except that a shadow policy
     * that would have denied counts as {@code shadow-denied}; otherwise it is where the decision came
     * from ({@code deny-cache}, {@code failed-open}, {@code failed-closed}, {@code local-fallback}).
     */
    RateLimitDecision counted(Policy[] ps, RateLimitDecision d) {
        if (metrics == RateLimitMetrics.NONE) {
            return d;
        }
        Outcome fixed = DecidedBy.of(d.source(), localIsPrimary).metricOutcome();
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
