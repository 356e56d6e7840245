package dev.ratelimit.runtime.tracing;

import dev.ratelimit.RateLimitDecision.Source;

/** What made a decision: the {@code ratelimit.decided_by} attribute of its trace. */
public enum DecidedBy {
    /** Redis. */
    REDIS("redis"),
    /** The in-process backend, deciding as the configured backend ({@code backend=local}, dev mode without Redis). */
    LOCAL("local"),
    /** The deny cache: a key Redis denied moments ago, denied without a call. */
    DENY_CACHE("deny-cache"),
    /** Redis failed or was skipped by the circuit breaker, and {@code fail-open} admitted. */
    FAIL_OPEN("fail-open"),
    /** Redis failed or was skipped, and {@code fail-closed} denied. */
    FAIL_CLOSED("fail-closed"),
    /** Redis failed or was skipped, and the in-process limiter decided ({@code on-failure=local}). */
    LOCAL_FALLBACK("local-fallback");

    private final String value;

    DecidedBy(String value) {
        this.value = value;
    }

    /** The attribute's value. */
    public String value() {
        return value;
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
            default:
                return localIsPrimary ? LOCAL : LOCAL_FALLBACK;
        }
    }
}
