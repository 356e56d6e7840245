package dev.ratelimit;

import java.time.Duration;
import java.util.List;

/**
 * The decision on one request across every policy applied to it.
 * <p>
 * {@link #allowed()} is true only when every enforced policy admits the request. The convenience
 * accessors ({@link #policy()}, {@link #limit()}, {@link #remaining()}, {@link #retryAfter()}) describe
 * the binding policy: when denied, the denying policy that needs the longest wait; when allowed, the
 * most restrictive one (fewest units left).
 */
public final class RateLimitDecision {

    /**
     * Where a decision came from.
     */
    public enum Source {
        /** Decided by the Redis backend. */
        REDIS,
        /** Decided by the in-process backend ({@code backend=local}, or {@code on-failure=local} during an outage). */
        LOCAL,
        /** The backend failed and the failure mode admitted the request. */
        FAILED_OPEN,
        /** The backend failed and the failure mode denied the request. */
        FAILED_CLOSED,
        /** Denied locally because the same key was denied moments ago (no backend call). */
        DENY_CACHE
    }

    private final boolean allowed;
    private final List<PolicyDecision> policies;
    private final PolicyDecision binding;
    private final Source source;

    public RateLimitDecision(boolean allowed, List<PolicyDecision> policies, Source source) {
        if (policies.isEmpty()) {
            throw new IllegalArgumentException("a decision needs at least one policy");
        }
        this.allowed = allowed;
        this.policies = List.copyOf(policies);
        this.source = source;
        this.binding = binding(allowed, this.policies);
    }

    private static PolicyDecision binding(boolean allowed, List<PolicyDecision> policies) {
        PolicyDecision best = null;
        for (PolicyDecision p : policies) {
            if (best == null) {
                best = p;
            } else if (!allowed) {
                boolean pDenies = !p.allowed() && !p.shadow();
                boolean bestDenies = !best.allowed() && !best.shadow();
                if (pDenies && (!bestDenies || p.retryAfter().compareTo(best.retryAfter()) > 0)) {
                    best = p;
                }
            } else if (p.remaining() < best.remaining()) {
                best = p;
            }
        }
        return best;
    }

    /** Whether the request may proceed. */
    public boolean allowed() {
        return allowed;
    }

    /** Every policy applied, in declaration order. */
    public List<PolicyDecision> policies() {
        return policies;
    }

    /** The binding policy's outcome. */
    public PolicyDecision binding() {
        return binding;
    }

    /** The binding policy's name. */
    public String policy() {
        return binding.policy();
    }

    /** The binding policy's limit. */
    public long limit() {
        return binding.limit();
    }

    /** Units left for the binding policy. */
    public long remaining() {
        return binding.remaining();
    }

    /**
     * How long until this request could be admitted by every policy that denied it; zero when allowed.
     */
    public Duration retryAfter() {
        Duration max = Duration.ZERO;
        for (PolicyDecision p : policies) {
            if (!p.allowed() && !p.shadow() && p.retryAfter().compareTo(max) > 0) {
                max = p.retryAfter();
            }
        }
        return max;
    }

    /** {@link #retryAfter()} in whole seconds, rounded up and at least 1 (the {@code Retry-After} value). */
    public long retryAfterSeconds() {
        return Math.max(1, PolicyDecision.ceilSeconds(retryAfter()));
    }

    /** Where the decision came from. */
    public Source source() {
        return source;
    }

    @Override
    public String toString() {
        return "RateLimitDecision[allowed=" + allowed + ", source=" + source + ", policies=" + policies + "]";
    }
}
