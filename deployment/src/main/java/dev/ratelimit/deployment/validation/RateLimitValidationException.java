package dev.ratelimit.deployment.validation;

/**
 * A problem with a {@code @RateLimit} usage or a policy, found at build time. One subclass per rule,
 * so tests and users can tell the rules apart.
 */
public abstract class RateLimitValidationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    protected RateLimitValidationException(String message) {
        super(message, null, false, false);
    }

    /** {@code @RateLimit} names a policy that no property defines. */
    public static final class UnknownPolicyException extends RateLimitValidationException {
        private static final long serialVersionUID = 1L;

        UnknownPolicyException(String message) {
            super(message);
        }
    }

    /** {@code @RateLimit} on a private method: interceptors cannot apply. */
    public static final class PrivateMethodException extends RateLimitValidationException {
        private static final long serialVersionUID = 1L;

        PrivateMethodException(String message) {
            super(message);
        }
    }

    /** {@code @RateLimit} on a static method: interceptors cannot apply. */
    public static final class StaticMethodException extends RateLimitValidationException {
        private static final long serialVersionUID = 1L;

        StaticMethodException(String message) {
            super(message);
        }
    }

    /**
     * A method returning an asynchronous type the interceptor does not know (a {@code Publisher}, a {@code Future},
     * a Kotlin {@code Deferred}...): deciding it would block the thread that calls it.
     */
    public static final class AsynchronousReturnTypeException extends RateLimitValidationException {
        private static final long serialVersionUID = 1L;

        AsynchronousReturnTypeException(String message) {
            super(message);
        }
    }

    /** {@code cost} not positive, or more than the policy could ever admit. */
    public static final class InvalidCostException extends RateLimitValidationException {
        private static final long serialVersionUID = 1L;

        InvalidCostException(String message) {
            super(message);
        }
    }

    /** A key source ({@code key} of a policy or of an annotation) that does not parse. */
    public static final class InvalidKeyException extends RateLimitValidationException {
        private static final long serialVersionUID = 1L;

        InvalidKeyException(String message) {
            super(message);
        }
    }

    /** A policy value that is invalid (algorithm, limit, window, burst, mode). */
    public static final class InvalidPolicyException extends RateLimitValidationException {
        private static final long serialVersionUID = 1L;

        InvalidPolicyException(String message) {
            super(message);
        }
    }

    /** A {@code paths} pattern that does not parse. */
    public static final class InvalidPathException extends RateLimitValidationException {
        private static final long serialVersionUID = 1L;

        InvalidPathException(String message) {
            super(message);
        }
    }
}
