package dev.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

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
        DENY_CACHE,
        /**
         * Admitted from a slice of the key's budget this instance leased from Redis earlier ({@code lease}; no backend
         * call).
         */
        LEASE
    }

    private final boolean allowed;
    private final List<PolicyDecision> policies;
    private final PolicyDecision binding;
    private final Source source;
    /** Frees the concurrency slots this decision holds; null once released, or when it holds none. */
    private volatile Runnable release;
    private static final AtomicReferenceFieldUpdater<RateLimitDecision, Runnable> RELEASE = AtomicReferenceFieldUpdater
            .newUpdater(RateLimitDecision.class, Runnable.class, "release");

    public RateLimitDecision(boolean allowed, List<PolicyDecision> policies, Source source) {
        this(allowed, policies, source, null);
    }

    /**
     * A decision holding concurrency slots, which {@code release} frees (null: it holds none). Only an allowed
     * decision holds slots.
     */
    public RateLimitDecision(boolean allowed, List<PolicyDecision> policies, Source source, Runnable release) {
        if (policies.isEmpty()) {
            throw new IllegalArgumentException("a decision needs at least one policy");
        }
        this.allowed = allowed;
        this.policies = List.copyOf(policies);
        this.source = source;
        this.binding = binding(allowed, this.policies);
        this.release = allowed ? release : null;
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

    /**
     * Whether this decision holds slots of a {@code concurrency} policy that were not released yet. The HTTP filter
     * and the interceptor release them when the request or the method ends; a decision from {@link RateLimiter} is
     * released by its caller.
     */
    public boolean holdsSlots() {
        return release != null;
    }

    /**
     * Frees the slots this decision holds in its {@code concurrency} policies, once the work they admitted has ended:
     * call it in a {@code finally} block, or when a {@code Uni} or {@code CompletionStage} terminates. Does nothing
     * when the decision holds none (denied, no concurrency policy) or was released before. Never blocks and never
     * throws: the slots are freed in the background, and a slot that cannot be freed (the backend is unreachable)
     * is free once the policy's {@code window} has passed since it was taken.
     */
    public void release() {
        Runnable r = release == null ? null : RELEASE.getAndSet(this, null);
        if (r != null) {
            r.run();
        }
    }

    @Override
    public String toString() {
        return "RateLimitDecision[allowed=" + allowed + ", source=" + source + ", policies=" + policies + "]";
    }
}
