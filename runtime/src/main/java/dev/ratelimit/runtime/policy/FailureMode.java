package dev.ratelimit.runtime.policy;

/**
 * Behaviour when the backend fails.
 */
public enum FailureMode {
    /** Admit the request. */
    FAIL_OPEN,
    /** Deny the request. */
    FAIL_CLOSED,
    /** Decide with the in-process limiter. */
    LOCAL
}
