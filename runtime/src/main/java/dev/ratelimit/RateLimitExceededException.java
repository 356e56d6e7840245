package dev.ratelimit;

/**
 * Thrown (or used to fail a {@code Uni} or {@code CompletionStage}) when a rate limit denies a call.
 * When it reaches Quarkus REST it is answered with {@code 429 Too Many Requests}, {@code Retry-After} and
 * the rate-limit headers.
 */
public class RateLimitExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient RateLimitDecision decision;

    public RateLimitExceededException(RateLimitDecision decision) {
        // no stack trace: a denial is an expected outcome on a hot path, not a bug to locate
        super("Rate limit exceeded for policy '" + decision.policy() + "', retry after "
                + decision.retryAfterSeconds() + "s", null, false, false);
        this.decision = decision;
    }

    /** The decision that denied the call. */
    public RateLimitDecision decision() {
        return decision;
    }

    /** The denying policy's name. */
    public String policy() {
        return decision.policy();
    }

    /** The denying policy's limit. */
    public long limit() {
        return decision.limit();
    }

    /** Units left for the denying policy. */
    public long remaining() {
        return decision.remaining();
    }

    /** Whole seconds, rounded up and at least 1, until the call could be admitted. */
    public long retryAfterSeconds() {
        return decision.retryAfterSeconds();
    }
}
