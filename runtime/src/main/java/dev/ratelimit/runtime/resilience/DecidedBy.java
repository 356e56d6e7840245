package dev.ratelimit.runtime.resilience;

import dev.ratelimit.RateLimitDecision.Source;
import dev.ratelimit.runtime.metrics.RateLimitMetrics.Outcome;

/**
 * What made a decision, the one model of it: the {@code ratelimit.decided_by} attribute of its trace
 * ({@link #value()}) and the {@code outcome} tag its policies are counted under in {@code ratelimit.decisions}
 * ({@link #metricOutcome()}), derived from the public {@link Source} and whether the in-process backend is the
 * configured one. A source maps to its trace value and its metric outcome here and nowhere else. The two spellings of
 * the failure modes differ ({@code fail-open} in traces, {@code failed-open} in metrics) because dashboards and
 * queries already read them so; the metrics page and the tracing section document each.
 */
public enum DecidedBy {
    /** Redis. */
    REDIS("redis", null),
    /** The in-process backend, deciding as the configured backend ({@code backend=local}, dev mode without Redis). */
    LOCAL("local", null),
    /** The deny cache: a key Redis denied moments ago, denied without a call. */
    DENY_CACHE("deny-cache", Outcome.DENY_CACHE),
    /** Redis failed or was skipped by the circuit breaker, and {@code fail-open} admitted. */
    FAIL_OPEN("fail-open", Outcome.FAILED_OPEN),
    /** Redis failed or was skipped, and {@code fail-closed} denied. */
    FAIL_CLOSED("fail-closed", Outcome.FAILED_CLOSED),
    /** Redis failed or was skipped, and the in-process limiter decided ({@code on-failure=local}). */
    LOCAL_FALLBACK("local-fallback", Outcome.LOCAL_FALLBACK),
    /** A slice of the key's budget leased from Redis ({@code lease}): counted as the backend's decisions are. */
    LEASE("lease", null);

    private final String value;
    private final Outcome metricOutcome;

    DecidedBy(String value, Outcome metricOutcome) {
        this.value = value;
        this.metricOutcome = metricOutcome;
    }

    /** The trace attribute's value. */
    public String value() {
        return value;
    }

    /**
     * The {@code outcome} every policy of the decision is counted under, or {@code null} when the configured backend
     * decided: then each policy counts what it answered ({@code allowed}, {@code denied}, {@code shadow-denied}).
     */
    public Outcome metricOutcome() {
        return metricOutcome;
    }

    /**
     * What made a decision from {@code source}; {@code localIsPrimary} tells whether the in-process backend is the
     * configured one (its decisions are then no fallback).
     */
    public static DecidedBy of(Source source, boolean localIsPrimary) {
        switch (source) {
            case REDIS:
                return REDIS;
            case DENY_CACHE:
                return DENY_CACHE;
            case FAILED_OPEN:
                return FAIL_OPEN;
            case FAILED_CLOSED:
                return FAIL_CLOSED;
            case LEASE:
                return LEASE;
            default:
                return localIsPrimary ? LOCAL : LOCAL_FALLBACK;
        }
    }
}
